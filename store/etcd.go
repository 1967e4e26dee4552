package store

// etcdEngine is the seam for the etcd engine (issue 14); nothing
// constructs one yet, so every Store is a bbolt store.
type etcdEngine struct{}

func (e *etcdEngine) view(func(kvTx) error) error { panic("unreachable: no etcd engine yet") }
func (e *etcdEngine) update(func(kvTx) error) (uint64, error) {
	panic("unreachable: no etcd engine yet")
}
func (e *etcdEngine) close() error { return nil }
