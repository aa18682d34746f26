// calibration.go: what decides a judge's verdict (its hash), judge certificates, and the require_calibration gate.

package assert

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"attest-engine/clip"
)

// judgeTemplateVersion names the judge's prompt templates; the hash of a
// judge also covers their text (templateHash), so an edit to them
// invalidates every certificate even if this name were left as it is.
const judgeTemplateVersion = "attest-judge-template/1"

// Sampling parameters every judge request is sent with (openai.go and
// anthropic.go in package provider): temperature 0, a JSON object asked
// for where the API has a mode for it, at most judgeReplyTokens.
const (
	judgeTemperature = 0.0
	judgeReplyTokens = 1024
)

// JudgeDecides is everything that decides a judge's verdict on a given
// answer, and nothing else: a certificate holds for a judge whose
// JudgeDecides hashes the same (Hash).
type JudgeDecides struct {
	Template     string  `json:"template"`      // judgeTemplateVersion
	TemplateHash string  `json:"template_hash"` // SHA-256 of the prompt templates' text
	Rubric       string  `json:"rubric"`        // built-in rubric name, or "" for free text or a custom prompt
	RubricHash   string  `json:"rubric_sha256"` // SHA-256 of the rubric text, custom prompt and criteria
	Provider     string  `json:"provider"`      // "openai" or "anthropic"
	BaseURL      string  `json:"base_url"`
	Model        string  `json:"model"`
	Temperature  float64 `json:"temperature"`
	MaxTokens    int     `json:"max_tokens"`
	Threshold    string  `json:"threshold"` // the number as text, or "dynamic"
	Consistency  string  `json:"consistency"`
	Target       string  `json:"target"`
	Compare      string  `json:"compare,omitempty"`
}

// Hash is the SHA-256 of the canonical JSON of d, hex.
func (d JudgeDecides) Hash() string {
	b, _ := json.Marshal(d)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func sha(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// templateHash covers the text of every template a judge request is built
// from: the system prompts, the retry note, and each message builder run
// over placeholder data.
var templateHash = sync.OnceValue(func() string { return sha(templateParts()...) })

func templateParts() []string {
	c := &judgeCheck{text: "{{rubric}}", criteria: "{{criteria}}", prompt: "{{prompt}}"}
	return []string{judgeSystem, judgePairSystem, judgeRetryNote,
		rubricPrompt("{{rubric}}", true, "{{criteria}}", "{{input}}", "{{output}}", "{{context}}"),
		customPrompt("{{prompt}} {{input}} {{output}}", "{{criteria}}", "{{input}}", "{{output}}"),
		c.pairMessage("{{input}}", "{{a}}", "{{b}}")}
}

// decides is the judge's JudgeDecides.
func (c *judgeCheck) decides() JudgeDecides {
	d := JudgeDecides{
		Template: judgeTemplateVersion, TemplateHash: templateHash(),
		RubricHash: sha(c.text, c.prompt, c.criteria),
		Provider:   c.client.Kind(), BaseURL: c.client.Base(), Model: c.model,
		Temperature: judgeTemperature, MaxTokens: judgeReplyTokens,
		Threshold: fmtNum(c.threshold), Consistency: c.cons.String(), Target: c.tgt.expr,
	}
	if _, ok := rubrics[c.rubric]; ok {
		d.Rubric = c.rubric
	}
	if c.dynamic {
		d.Threshold = "dynamic"
	}
	if c.compare != nil {
		d.Compare = c.compare.expr
	}
	return d
}

// JudgeDecides compiles an llm_judge spec and returns what decides its
// verdicts (the calibrate command keys a certificate by its Hash).
func (e *Engine) JudgeDecides(spec map[string]any) (JudgeDecides, error) {
	chk, err := compileJudge(e, spec)
	if err != nil {
		return JudgeDecides{}, err
	}
	return chk.(*judgeCheck).decides(), nil
}

// CertificateFormat is the "format" of a judge certificate file.
const CertificateFormat = "attest-judge-certificate/1"

// Certificate is a judge certificate file, written by `attest-engine
// calibrate` (docs/judges.md): for each judge of a suite, its agreement
// with human labels, keyed by the hash of what decides its verdicts.
type Certificate struct {
	Format       string      `json:"format"`
	LabelsSHA256 string      `json:"labels_sha256"`
	Judges       []JudgeCert `json:"judges"`
}

// JudgeCert is one judge's entry of a certificate. Optional statistics are
// null when the labels do not allow them (quadratic κ needs numeric
// labels).
type JudgeCert struct {
	Assertion      string       `json:"assertion"`
	Hash           string       `json:"hash"`
	Decides        JudgeDecides `json:"decides"`
	N              int          `json:"n"`
	Accuracy       float64      `json:"accuracy"`
	AccuracyCI     [2]float64   `json:"accuracy_ci95"`
	Confusion      [2][2]int    `json:"confusion"` // [human fail, human pass] × [judge fail, judge pass]
	CohenKappa     float64      `json:"cohen_kappa"`
	CohenKappaCI   [2]float64   `json:"cohen_kappa_ci95"`
	QuadraticKappa *float64     `json:"quadratic_kappa"`
	QuadraticCI    *[2]float64  `json:"quadratic_kappa_ci95"`
	Alpha          float64      `json:"krippendorff_alpha"` // nominal, the humans and the judge as raters
	AlphaRaters    int          `json:"krippendorff_alpha_raters"`
	HumansAlpha    *float64     `json:"humans_alpha"` // among the humans alone, when there are several
	Majority       float64      `json:"majority_baseline"`
	BootstrapSeed  uint64       `json:"bootstrap_seed"`
	BootstrapReps  int          `json:"bootstrap_replicates"`
	HumanRaters    int          `json:"human_raters"` // the most human labels any item has
}

// maxCertificateBytes bounds a certificate file read by the gate.
const maxCertificateBytes = 16 << 20

// ReadCertificate reads and checks a certificate file. A path that names
// no regular file is refused before it is opened: opening a FIFO for
// reading would wait for a writer for ever.
func ReadCertificate(path string) (*Certificate, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxCertificateBytes+1))
	if err != nil {
		return nil, err
	}
	return parseCertificate(b)
}

// parseCertificate checks the text of a certificate file (untrusted: its
// fuzz target is FuzzCertificate).
func parseCertificate(b []byte) (*Certificate, error) {
	if len(b) > maxCertificateBytes {
		return nil, fmt.Errorf("larger than %d bytes", maxCertificateBytes)
	}
	var c Certificate
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("not a judge certificate: %v", err)
	}
	if c.Format != CertificateFormat {
		return nil, fmt.Errorf("format %q, want %q", clip.String(c.Format, 60), CertificateFormat)
	}
	return &c, nil
}

// CalibrationRequirement is "require_calibration" on an llm_judge spec, or
// the config key of the same name for every judge without its own: a
// verdict counts only when the certificate holds an entry for this judge's
// hash with Cohen's κ at least MinKappa.
type CalibrationRequirement struct {
	Certificate string  `json:"certificate"`
	MinKappa    float64 `json:"min_kappa"`
}

func readRequirement(s spec, def *CalibrationRequirement) (*CalibrationRequirement, error) {
	v, ok := s["require_calibration"]
	if !ok || v == nil {
		return def, nil
	}
	const help = `Set 'require_calibration' to {"certificate": "<path written by attest-engine calibrate>", "min_kappa": 0.6}.`
	m, ok := v.(map[string]any)
	if !ok {
		return nil, specErrorf(help, "spec field 'require_calibration' must be an object")
	}
	rs := spec(m)
	path, err := rs.str("certificate", true)
	if err != nil {
		return nil, specErrorf(help, "require_calibration: %v", err)
	}
	k, ok, err := rs.num("min_kappa")
	if err != nil || (ok && (k < -1 || k > 1)) {
		return nil, specErrorf(help, "require_calibration: 'min_kappa' must be a number from -1 to 1")
	}
	if !ok {
		k = defaultMinKappa
	}
	return &CalibrationRequirement{Certificate: path, MinKappa: k}, nil
}

// defaultMinKappa is the floor when require_calibration names none: κ 0.6,
// "substantial" agreement on the usual reading of κ.
const defaultMinKappa = 0.6

// certificates caches certificate files by path, read again when their
// size or modification time changes.
type certificates struct {
	mu    sync.Mutex
	files map[string]certFile
}

type certFile struct {
	size int64
	mod  time.Time
	cert *Certificate
	err  error
}

// maxCachedCertificates bounds the cache: specs name the paths.
const maxCachedCertificates = 64

func (cs *certificates) read(path string) (*Certificate, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if f, ok := cs.files[path]; ok && f.size == st.Size() && f.mod.Equal(st.ModTime()) {
		return f.cert, f.err
	}
	c, err := ReadCertificate(path)
	if cs.files == nil || len(cs.files) >= maxCachedCertificates {
		cs.files = map[string]certFile{}
	}
	cs.files[path] = certFile{st.Size(), st.ModTime(), c, err}
	return c, err
}

// calibrated checks the judge against its requirement: "" when it holds,
// else why not.
func (c *judgeCheck) calibrated() string {
	req := c.calib
	c2, err := c.certs.read(req.Certificate)
	if err != nil {
		if os.IsNotExist(err) {
			return fmt.Sprintf("certificate %s is missing: run attest-engine calibrate --out %s", clip.String(req.Certificate, 200), clip.String(req.Certificate, 200))
		}
		return fmt.Sprintf("certificate %s cannot be read: %v", clip.String(req.Certificate, 200), err)
	}
	for i := range c2.Judges {
		j := &c2.Judges[i]
		if j.Hash != c.hash {
			continue
		}
		if j.CohenKappa < req.MinKappa {
			return fmt.Sprintf("certificate %s gives this judge Cohen's κ %.3f over %d labelled items, below the floor %s", clip.String(req.Certificate, 200), j.CohenKappa, j.N, fmtNum(req.MinKappa))
		}
		return ""
	}
	return fmt.Sprintf("certificate %s is stale: it holds no entry for this judge's hash %s (its rubric, templates, model or parameters changed since calibration): calibrate again", clip.String(req.Certificate, 200), c.hash[:12])
}

// gate applies require_calibration to an outcome: an uncalibrated
// verdict is neither a pass nor a hard failure but a soft_fail marked
// calibrated: false, its explanation saying why and what the judge said.
func (c *judgeCheck) gate(o outcome) outcome {
	if c.calib == nil {
		return o
	}
	if o.judge == nil {
		o.judge = &JudgeInfo{}
	}
	why := c.calibrated()
	ok := why == ""
	o.judge.Calibrated = &ok
	if ok {
		return o
	}
	verdict := "fail"
	if o.pass {
		verdict = "pass"
	}
	o.explanation = fmt.Sprintf("Uncalibrated judge: %s. Its verdict (%s) is not used. %s", why, verdict, strings.TrimSpace(o.explanation))
	o.pass, o.soft = false, true
	return o
}
