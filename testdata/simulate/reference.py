# Reference for attest-engine's simulation decisions (simulate/doc.go): reads JSON lines
# {seed, scenario_id, tool, args, occurrence, attempt, fault_id, rate, lo, hi} on stdin and
# writes [canonical args, digest hex, fires, pick(lo, hi), canary] per line.
import decimal, hashlib, json, struct, sys

def num(f):
    if f == 0: return "0"
    if f < 0: return "-" + num(-f)
    t = decimal.Decimal(repr(f)).normalize().as_tuple()
    s = "".join(map(str, t.digits)); k = len(s); n = k + t.exponent
    if k <= n <= 21: return s + "0" * (n - k)
    if 0 < n <= 21: return s[:n] + "." + s[n:]
    if -6 < n <= 0: return "0." + "0" * -n + s
    return s[0] + ("." + s[1:] if k > 1 else "") + "e" + ("+" if n > 1 else "-") + str(abs(n - 1))

def canon(v):
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(canon(k) + ":" + canon(v[k]) for k in keys) + "}"
    if isinstance(v, list): return "[" + ",".join(map(canon, v)) + "]"
    if isinstance(v, bool) or v is None or isinstance(v, str): return json.dumps(v, ensure_ascii=False)
    return num(float(v))

def digest(seed, scenario, tool, args, occurrence, attempt, fault_id):
    fields = ["attest-simulate-v1", seed, scenario, tool, canon(args), str(occurrence), str(attempt), fault_id]
    data = b"".join(struct.pack(">Q", len(b)) + b for b in (f.encode() for f in fields))
    return hashlib.sha256(data).digest()

for line in sys.stdin:
    c = json.loads(line)
    d = digest(c["seed"], c["scenario_id"], c["tool"], c["args"], c["occurrence"], c["attempt"], c["fault_id"])
    x, y = int.from_bytes(d[0:8], "big") >> 11, int.from_bytes(d[8:16], "big") >> 11
    pick = c["lo"] + ((y * (c["hi"] - c["lo"] + 1)) >> 53)
    print(json.dumps([canon(c["args"]), d.hex(), x < c["rate"] * 2**53, pick, "CANARY-" + d[16:24].hex()]))
