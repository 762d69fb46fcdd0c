package elasticsearch

// SetAfterScan runs fn between the lifecycle pass's read of an index it
// retires and its re-read of the legal holds (Store.afterScan).
func SetAfterScan(s *Store, fn func(idx string)) { s.afterScan = fn }
