// sink.go: where alerts go: the NDJSON alert file, OnAlert, the webhook.
package history

import "encoding/json"

// emit hands alerts to every configured sink. It never blocks on the
// network: the webhook has its own bounded queue.
func (s *Store) emit(alerts []Alert) {
	for _, a := range alerts {
		if s.alertF != nil {
			line, _ := json.Marshal(a) // an Alert always marshals: finite numbers, valid strings
			if _, err := s.alertF.Write(append(line, '\n')); err != nil {
				s.opts.Logger.Error("history: alert file write failed", "err", err.Error())
			}
		}
		if s.opts.OnAlert != nil {
			s.opts.OnAlert(a)
		}
		if s.hook != nil {
			s.hook.enqueue(a)
		}
	}
}
