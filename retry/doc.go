// Package retry is the one rule by which the engine delivers a POST to a
// receiver the user configured (drift alerts to --alert-webhook, results to
// --export-otlp): a bounded number of attempts; 2xx delivered; 408, 429
// and 5xx (and transport errors) retried, after Retry-After when the
// receiver gives one (delay-seconds or an HTTP-date, RFC 9110 §10.2.3,
// capped); anything else fails for good. The delay before a retry is
// Backoff·2^attempt capped at MaxBackoff, scaled by a factor in [0.5, 1)
// from SHA-256(key, attempt): spread between deliveries, yet a pure
// function of its inputs. An answer's body is read to a bound and
// discarded.
package retry
