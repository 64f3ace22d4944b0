// Package serve is `rhizome serve`'s transport: the app's use cases over
// HTTP for a browser on loopback (an explicit list, methods.go), its events
// as server-sent events, and session files uploaded as multipart form data.
// It holds no use case of its own: every call goes to an app area. See
// docs/CONTRACT.md.
package serve

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"rhizome/app"
	"rhizome/store"
)

// maxRequestBytes bounds a call's JSON body: a loom tree file arrives
// base64-encoded (Loom.Import, up to maxLoomFileBytes), as do session files
// sent to Import.ImportFiles; the browser streams session files to
// /api/upload instead, which has no such bound.
const maxRequestBytes = 512 << 20

// Server serves the frontend and the use cases over HTTP for a browser
// (`rhizome serve`): POST /api/<Area>/<Method> with a JSON array of
// arguments, GET /api listing the methods, GET /api/events as server-sent
// events, POST /api/upload with dropped session files as multipart form data.
// The use cases served are the explicit list of useCases. Every /api request
// must carry the token (query "token" or header "X-Rhizome-Token"); requests
// from other origins or for other hosts are refused. Use cases that take
// paths on this machine answer 501 (the browser sends files instead). See
// docs/CONTRACT.md.
type Server struct {
	app      *app.App
	token    string
	assets   fs.FS
	methods  map[string]method // "Area.Method" -> the use case
	timeouts timeouts

	mu      sync.Mutex
	clients map[chan sseEvent]struct{}
	host    string // "127.0.0.1:PORT" once listening
}

type sseEvent struct {
	name string
	data []byte
}

// New makes a Server for a over assets (the built frontend, index.html
// at its root). It installs itself as a's event emitter and marks a as
// served (app.App.SetServed: no use case takes a path on this machine).
func New(a *app.App, assets fs.FS) (*Server, error) {
	buf := make([]byte, 16)
	if _, err := rand.Read(buf); err != nil {
		return nil, fmt.Errorf("serve: unable to make a token: %w", err)
	}
	s := &Server{app: a, token: hex.EncodeToString(buf), assets: assets, timeouts: defaultTimeouts,
		methods: useCases(a), clients: map[chan sseEvent]struct{}{}}
	a.SetEmitter(s.broadcast)
	a.SetServed()
	return s, nil
}

// timeouts bound how long a client may take over a request on the server
// httpServer makes.
type timeouts struct {
	// ReadHeader is the longest a client may take to send a request's
	// headers (a client that opens connections and sends nothing holds none
	// for long).
	ReadHeader time.Duration
	// Read is the longest a client may take to send a call's body; for an
	// upload, the longest it may go without sending a byte.
	Read time.Duration
	// Write is the longest a client may take to read a response, counted
	// from when the response starts to be written (not from the request: a
	// use case may run as long as it needs, Loom.Generate while the model
	// writes, an import while it reads); for the event stream, each event.
	Write time.Duration
	// Idle is how long a kept-alive connection waits for its next request.
	Idle time.Duration
}

// defaultTimeouts are the timeouts of `rhizome serve`.
var defaultTimeouts = timeouts{ReadHeader: 10 * time.Second, Read: time.Minute, Write: time.Minute, Idle: 2 * time.Minute}

// HTTPServer is an http.Server for s with its timeouts. The server-wide
// ReadTimeout and WriteTimeout are set as a default for every route; the
// routes that must outlast them (the event stream, a call while its use case
// runs, an upload) move their own deadlines with http.ResponseController.
func (s *Server) HTTPServer() *http.Server {
	t := s.timeouts
	return &http.Server{
		Handler:           s,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
	}
}

// Listen binds addr, which must be a loopback address ("127.0.0.1:0" picks a
// free port). It returns the listener and the URL to open, token included.
// Errors: a non-loopback address, or the bind failing.
func (s *Server) Listen(addr string) (net.Listener, string, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, "", fmt.Errorf("serve: bad address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, "", fmt.Errorf("serve: address %q is not loopback: rhizome serve only listens on 127.0.0.1, ::1 or localhost", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("serve: unable to listen on %s: %w", addr, err)
	}
	s.mu.Lock()
	s.host = ln.Addr().String()
	s.mu.Unlock()
	return ln, fmt.Sprintf("http://%s/?token=%s", ln.Addr().String(), s.token), nil
}

// Serve serves s on ln (from Listen) with its timeouts until ctx ends,
// which closes the server and every connection; it returns nil then, else
// net/http's error that stopped serving, as it is.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := s.HTTPServer()
	stop := context.AfterFunc(ctx, func() { hs.Close() })
	defer stop()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// methodNames lists "Area.Method" for every served use case, sorted.
func (s *Server) methodNames() []string {
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
		writeJSON(w, map[string]any{"methods": s.methodNames()})
	case r.URL.Path == "/api/events" && r.Method == http.MethodGet:
		s.serveEvents(w, r)
	case r.URL.Path == "/api/upload":
		if r.Method != http.MethodPost {
			httpError(w, http.StatusMethodNotAllowed, "use POST /api/upload with multipart/form-data")
			return
		}
		s.upload(w, r)
	case r.Method == http.MethodPost:
		s.call(w, r, strings.TrimPrefix(r.URL.Path, "/api/"))
	default:
		httpError(w, http.StatusMethodNotAllowed, "use POST /api/<Area>/<Method>")
	}
}

// authorised reports whether r carries the token, compared in constant time
// so that the time to answer says nothing about how much of it was right.
func (s *Server) authorised(r *http.Request) bool {
	tok := r.URL.Query().Get("token")
	if tok == "" {
		tok = r.Header.Get("X-Rhizome-Token")
	}
	return tok != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(s.token)) == 1
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
		noFrontend(w)
		return
	}
	if _, err := fs.Stat(s.assets, "index.html"); err != nil {
		noFrontend(w)
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

// noFrontendPage is what a binary built without the frontend answers for the
// page: frontend/dist held no index.html when it was compiled.
const noFrontendPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Rhizome: the frontend was not built</title>
<style>
body { font: 15px/1.5 system-ui, sans-serif; max-width: 40em; margin: 4em auto; padding: 0 1em; color: #222; background: #fff; }
code, pre { font-family: ui-monospace, monospace; background: #f2f2f2; padding: 0.1em 0.3em; border-radius: 3px; }
pre { padding: 0.6em 0.8em; }
@media (prefers-color-scheme: dark) { body { color: #ddd; background: #1b1b1d; } code, pre { background: #2a2a2e; } }
</style>
</head>
<body>
<h1>The frontend was not built</h1>
<p>This <code>rhizome</code> binary was compiled without its web frontend
(<code>frontend/dist</code> held no <code>index.html</code>), so there is no page to show.
The API under <code>/api</code> works.</p>
<p>Build the frontend and the binary together, from the repository:</p>
<pre>make build</pre>
<p>then run <code>build/bin/rhizome serve</code> again.</p>
</body>
</html>
`

// noFrontend answers a page request of a binary built without the frontend:
// 503 (the page is not available from this binary) with a page saying why
// and how to build it.
func noFrontend(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusServiceUnavailable)
	io.WriteString(w, noFrontendPage)
}

// call decodes the JSON array body into the method's parameters, calls it
// and writes its result. Once the body is read, the connection's deadlines
// are lifted while the use case runs (Loom.Generate lasts as long as the
// model writes, an import as long as its files), and the write deadline is
// set again, timeouts.Write from now, for writing the result.
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
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Time{})
	rc.SetWriteDeadline(time.Time{})
	var raw []json.RawMessage
	if len(strings.TrimSpace(string(body))) > 0 {
		if err := json.Unmarshal(body, &raw); err != nil {
			httpError(w, http.StatusBadRequest, "body must be a JSON array of arguments: "+err.Error())
			return
		}
	}
	if len(raw) != m.args {
		httpError(w, http.StatusBadRequest, fmt.Sprintf("%s takes %d arguments, got %d", name, m.args, len(raw)))
		return
	}
	result, err := m.call(raw)
	s.writeDeadline(rc)
	var bad argError
	switch {
	case errors.As(err, &bad):
		httpError(w, http.StatusBadRequest, fmt.Sprintf("%s argument %d: %v", name, bad.n, bad.err))
	case err != nil:
		httpError(w, errorStatus(err), err.Error())
	default:
		writeJSON(w, result)
	}
}

// upload imports session files sent as multipart/form-data, one part with a
// file name per file (a browser's FormData): each part is streamed to a
// spool file beside the library, and once the body is read they are
// imported together, as Import.ImportFiles would import the same bytes; the
// answer is the ImportReport. Memory holds a copy buffer while reading and
// the import's own (bounded by the longest line), whatever the files' size.
// The body has no size limit, but it must keep coming: each read has
// timeouts.Read. A body that fails or stops midway imports nothing.
func (s *Server) upload(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	r.Body = &idleReader{r: r.Body, rc: rc, idle: s.timeouts.Read}
	mr, err := r.MultipartReader()
	if err != nil {
		httpError(w, http.StatusBadRequest, "app: an upload must be multipart/form-data, one part per file: "+err.Error())
		return
	}
	up, err := s.app.NewUpload()
	if err != nil {
		httpError(w, http.StatusInternalServerError, err.Error())
		return
	}
	defer up.Close()
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			httpError(w, http.StatusBadRequest, fmt.Errorf("%w: %w", app.ErrUploadBody, err).Error())
			return
		}
		name := part.FileName()
		if name == "" { // a form field, not a file
			part.Close()
			continue
		}
		err = up.Add(name, part)
		part.Close()
		if err != nil {
			status := http.StatusInternalServerError
			if errors.Is(err, app.ErrUploadBody) {
				status = http.StatusBadRequest
			}
			httpError(w, status, err.Error())
			return
		}
	}
	rc.SetReadDeadline(time.Time{})
	rc.SetWriteDeadline(time.Time{})
	rep, err := up.Import()
	s.writeDeadline(rc)
	if err != nil {
		httpError(w, errorStatus(err), err.Error())
		return
	}
	writeJSON(w, rep)
}

// idleReader reads a request body with a read deadline renewed before each
// read: the body may take as long as it needs while bytes keep coming.
type idleReader struct {
	r    io.ReadCloser
	rc   *http.ResponseController
	idle time.Duration
}

func (b *idleReader) Read(p []byte) (int, error) {
	if b.idle > 0 {
		b.rc.SetReadDeadline(time.Now().Add(b.idle))
	}
	return b.r.Read(p)
}

func (b *idleReader) Close() error { return b.r.Close() }

// writeDeadline gives the response timeouts.Write from now to be written.
func (s *Server) writeDeadline(rc *http.ResponseController) {
	if s.timeouts.Write > 0 {
		rc.SetWriteDeadline(time.Now().Add(s.timeouts.Write))
	}
}

// serveEvents streams events until the client goes. The stream outlasts the
// server's read and write timeouts: the read deadline is lifted (else the
// server's watch for the client closing would end the stream when it
// expires) and each event gets timeouts.Write to be written.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		httpError(w, http.StatusInternalServerError, "streaming unsupported")
		return
	}
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Time{})
	s.writeDeadline(rc)
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
			s.writeDeadline(rc)
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
// (no model configured, a generation cancelled, a reasoning graph changed
// meanwhile), 422 for input refused (a MemoBrain patch naming a node that is
// not there), 501 for window-only calls (native dialogs, paths on this
// machine), else 500.
func errorStatus(err error) int {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, app.ErrNoModel), errors.Is(err, context.Canceled), errors.Is(err, store.ErrLoomTreeExists),
		errors.Is(err, store.ErrReasoningChanged):
		return http.StatusConflict
	case errors.Is(err, app.ErrInvalid):
		return http.StatusUnprocessableEntity
	case errors.Is(err, app.ErrNoDialogs), errors.Is(err, app.ErrNoPaths):
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
