package testenv

import (
	"net"
	"sync"
	"testing"
	"time"
)

// Proxy forwards TCP connections to a real service, and can take it away
// in the two ways a service goes away: Cut closes every open connection
// and refuses new ones (a service that went down), Freeze holds every
// byte (a service that hangs, or a partition that drops packets). Restore
// ends either. Tests use it to take Elasticsearch away from one process
// without stopping the shared cluster.
type Proxy struct {
	Addr   string
	target string
	ln     net.Listener

	mu      sync.Mutex
	cut     bool
	frozen  chan struct{} // closed when not frozen
	latency time.Duration
	conns   map[net.Conn]struct{}
}

// StartProxy listens on the loopback and forwards to target (host:port);
// it stops when the test ends.
func StartProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Addr: ln.Addr().String(), target: target, ln: ln, conns: map[net.Conn]struct{}{}, frozen: make(chan struct{})}
	close(p.frozen)
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.Cut(); p.Restore() })
	return p
}

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns[c] = struct{}{}
		p.mu.Unlock()
		go p.pipe(c)
	}
}

func (p *Proxy) pipe(c net.Conn) {
	u, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.cut {
		p.mu.Unlock()
		c.Close()
		u.Close()
		return
	}
	p.conns[u] = struct{}{}
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { p.copy(u, c, true); done <- struct{}{} }()
	go func() { p.copy(c, u, false); done <- struct{}{} }()
	<-done
	c.Close()
	u.Close()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, u)
	p.mu.Unlock()
}

// copy forwards src to dst, holding each chunk while frozen, and delaying
// the requests (client to service) by the latency.
func (p *Proxy) copy(dst, src net.Conn, request bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			frozen, latency := p.frozen, p.latency
			p.mu.Unlock()
			<-frozen
			if request && latency > 0 {
				time.Sleep(latency)
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return // EOF or a closed side: pipe closes both
		}
	}
}

// SetLatency delays every request chunk by d (0 for none): it makes a
// scan of known length take a known least time.
func (p *Proxy) SetLatency(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.latency = d
}

// Cut closes every connection and refuses new ones until Restore.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}

// Freeze holds every byte in both directions, on open connections and new
// ones, until Restore: the service looks hung.
func (p *Proxy) Freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.frozen:
		p.frozen = make(chan struct{})
	default: // already frozen
	}
}

// Restore accepts and forwards connections again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
	select {
	case <-p.frozen:
	default:
		close(p.frozen)
	}
}
