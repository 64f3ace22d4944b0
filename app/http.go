package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"sync"

	"rhizome/store"
)

// maxRequestBytes bounds a POST body: dropped files arrive base64-encoded,
// so this is roughly 384 MiB of session bytes.
const maxRequestBytes = 512 << 20

// Server serves the frontend and the use cases over HTTP for a browser
// (`rhizome serve`): POST /api/<Area>/<Method> with a JSON array of
// arguments, GET /api listing the methods, GET /api/events as server-sent
// events. Every /api request must carry the token (query "token" or header
// "X-Rhizome-Token"); requests from other origins or for other hosts are
// refused. See docs/CONTRACT.md.
type Server struct {
	app     *App
	token   string
	assets  fs.FS
	methods map[string]reflect.Value // "Area.Method" -> bound method

	mu      sync.Mutex
	clients map[chan sseEvent]struct{}
	host    string // "127.0.0.1:PORT" once listening
}

type sseEvent struct {
	name string
	data []byte
}

// NewServer makes a server for a over assets (the built frontend, index.html
// at its root). It installs itself as a's event emitter.
func NewServer(a *App, assets fs.FS) (*Server, error) {
	buf := make([]byte, 16)
	if _, err := rand.Read(buf); err != nil {
		return nil, fmt.Errorf("app: unable to make a token: %w", err)
	}
	s := &Server{app: a, token: hex.EncodeToString(buf), assets: assets,
		methods: map[string]reflect.Value{}, clients: map[chan sseEvent]struct{}{}}
	for _, area := range a.Areas() {
		v := reflect.ValueOf(area.Impl)
		t := v.Type()
		for i := 0; i < t.NumMethod(); i++ {
			s.methods[area.Name+"."+t.Method(i).Name] = v.Method(i)
		}
	}
	a.SetEmitter(s.broadcast)
	return s, nil
}

// Token is the secret every /api request must carry.
func (s *Server) Token() string { return s.token }

// Listen binds addr, which must be a loopback address ("127.0.0.1:0" picks a
// free port). It returns the listener and the URL to open, token included.
// Errors: a non-loopback address, or the bind failing.
func (s *Server) Listen(addr string) (net.Listener, string, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, "", fmt.Errorf("app: bad address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, "", fmt.Errorf("app: address %q is not loopback: rhizome serve only listens on 127.0.0.1, ::1 or localhost", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("app: unable to listen on %s: %w", addr, err)
	}
	s.mu.Lock()
	s.host = ln.Addr().String()
	s.mu.Unlock()
	return ln, fmt.Sprintf("http://%s/?token=%s", ln.Addr().String(), s.token), nil
}

// MethodNames lists "Area.Method" for every served use case, sorted.
func (s *Server) MethodNames() []string {
	names := make([]string, 0, len(s.methods))
	for n := range s.methods {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.sameHost(r) {
		httpError(w, http.StatusForbidden, "host not allowed")
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !s.sameOrigin(origin) {
		httpError(w, http.StatusForbidden, "origin not allowed")
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	if r.URL.Path != "/api" && !strings.HasPrefix(r.URL.Path, "/api/") {
		s.serveAsset(w, r)
		return
	}
	if !s.authorised(r) {
		httpError(w, http.StatusUnauthorized, "missing or wrong token")
		return
	}
	switch {
	case r.URL.Path == "/api" && r.Method == http.MethodGet:
		writeJSON(w, map[string]any{"methods": s.MethodNames()})
	case r.URL.Path == "/api/events" && r.Method == http.MethodGet:
		s.serveEvents(w, r)
	case r.Method == http.MethodPost:
		s.call(w, r, strings.TrimPrefix(r.URL.Path, "/api/"))
	default:
		httpError(w, http.StatusMethodNotAllowed, "use POST /api/<Area>/<Method>")
	}
}

func (s *Server) authorised(r *http.Request) bool {
	tok := r.URL.Query().Get("token")
	if tok == "" {
		tok = r.Header.Get("X-Rhizome-Token")
	}
	return tok != "" && tok == s.token
}

// sameHost refuses requests whose Host is not the address served (DNS
// rebinding).
func (s *Server) sameHost(r *http.Request) bool {
	s.mu.Lock()
	host := s.host
	s.mu.Unlock()
	if host == "" { // not listening through Listen (tests with httptest)
		return true
	}
	_, port, _ := net.SplitHostPort(host)
	for _, h := range []string{host, "localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port} {
		if r.Host == h {
			return true
		}
	}
	return false
}

func (s *Server) sameOrigin(origin string) bool {
	s.mu.Lock()
	host := s.host
	s.mu.Unlock()
	if host == "" {
		return false
	}
	_, port, _ := net.SplitHostPort(host)
	for _, h := range []string{host, "localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port} {
		if origin == "http://"+h {
			return true
		}
	}
	return false
}

func (s *Server) serveAsset(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		httpError(w, http.StatusMethodNotAllowed, "assets are read-only")
		return
	}
	if s.assets == nil {
		httpError(w, http.StatusNotFound, "no frontend built: run `make build`")
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/")
	if path == "" {
		path = "index.html"
	}
	if _, err := fs.Stat(s.assets, path); err != nil {
		path = "index.html"
	}
	if path == "index.html" {
		w.Header().Set("Cache-Control", "no-store")
	}
	http.ServeFileFS(w, r, s.assets, path)
}

// call decodes the JSON array body into the method's parameters, calls it
// and writes its result.
func (s *Server) call(w http.ResponseWriter, r *http.Request, name string) {
	m, ok := s.methods[strings.Replace(name, "/", ".", 1)]
	if !ok {
		httpError(w, http.StatusNotFound, fmt.Sprintf("no such method %q (GET /api lists them)", name))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBytes))
	if err != nil {
		httpError(w, http.StatusRequestEntityTooLarge, "request body: "+err.Error())
		return
	}
	var raw []json.RawMessage
	if len(strings.TrimSpace(string(body))) > 0 {
		if err := json.Unmarshal(body, &raw); err != nil {
			httpError(w, http.StatusBadRequest, "body must be a JSON array of arguments: "+err.Error())
			return
		}
	}
	t := m.Type()
	if len(raw) != t.NumIn() {
		httpError(w, http.StatusBadRequest, fmt.Sprintf("%s takes %d arguments, got %d", name, t.NumIn(), len(raw)))
		return
	}
	args := make([]reflect.Value, t.NumIn())
	for i := range args {
		p := reflect.New(t.In(i))
		if err := json.Unmarshal(raw[i], p.Interface()); err != nil {
			httpError(w, http.StatusBadRequest, fmt.Sprintf("%s argument %d: %v", name, i+1, err))
			return
		}
		args[i] = p.Elem()
	}
	out := m.Call(args)
	var result any
	for _, v := range out {
		if v.Type() == reflect.TypeFor[error]() {
			if !v.IsNil() {
				err := v.Interface().(error)
				httpError(w, errorStatus(err), err.Error())
				return
			}
			continue
		}
		result = v.Interface()
	}
	writeJSON(w, result)
}

func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		httpError(w, http.StatusInternalServerError, "streaming unsupported")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	ch := make(chan sseEvent, 256)
	s.mu.Lock()
	s.clients[ch] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.clients, ch)
		s.mu.Unlock()
	}()
	fmt.Fprint(w, ": connected\n\n")
	flusher.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case ev := <-ch:
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.name, ev.data)
			flusher.Flush()
		}
	}
}

// broadcast sends an event to every connected event stream; a client too
// slow to keep up loses progress events rather than blocking the import.
func (s *Server) broadcast(name string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.clients {
		select {
		case ch <- sseEvent{name, b}:
		default:
		}
	}
}

// errorStatus is the HTTP status for a use case's error: 404 for what is not
// in the library, 409 for what cannot be done in the library's present state
// (no model configured, a generation cancelled), 501 for window-only calls,
// else 500.
func errorStatus(err error) int {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, errNoModel), errors.Is(err, context.Canceled), errors.Is(err, store.ErrLoomTreeExists):
		return http.StatusConflict
	case errors.Is(err, ErrNoDialogs):
		return http.StatusNotImplemented
	}
	return http.StatusInternalServerError
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		var ue *json.UnsupportedValueError
		if errors.As(err, &ue) {
			httpError(w, http.StatusInternalServerError, err.Error())
		}
	}
}

func httpError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
