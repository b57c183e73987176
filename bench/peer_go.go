// bench/peer_go.go -- what a Go user would write instead of posenc: net/http + encoding/json, the
// same small POST /rope that `make bench` sends to posencd, answered with the same document
// (bench/run.sh checks it against posenc's before timing it; bench/check_answer.py).
//
//	go build -o build/bench/peer-go bench/peer_go.go && build/bench/peer-go 127.0.0.1:0
//
// Prints "listening on http://HOST:PORT" once it serves. Endpoints (posenc's field names, only what
// the benchmark sends):
//
//	GET  /healthz  {"status":"ok"}
//	POST /rope     {head_dim, positions, q, k[, rope_theta]} (q, k: one vector of head_dim numbers,
//	               rotated at every position) -> posenc's /rope answer: plain RoPE, rotate_half
//	               layout, float64, scores = q_rot . k_rot^T (no 1/sqrt(d))
//
// The arithmetic follows posenc's order (docs/conventions.md): inv_freq[j] = 1 / base^(2j/d), the
// angle p * inv_freq[j], out1 = x1*cos - x2*sin, out2 = x2*cos + x1*sin, dot products summed in
// index order. Go's math.Cos/Sin are not glibc's, so values may differ by an ulp or a few.
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"strconv"
)

type ropeRequest struct {
	HeadDim   int       `json:"head_dim"`
	Positions []int     `json:"positions"`
	Q         []float64 `json:"q"`
	K         []float64 `json:"k"`
	RopeTheta *float64  `json:"rope_theta"`
}

type scaling struct {
	Type string `json:"type"`
}

type resolved struct {
	HeadDim       int     `json:"head_dim"`
	RotaryDim     int     `json:"rotary_dim"`
	Layout        string  `json:"layout"`
	InvFreqSource string  `json:"inv_freq_source"`
	Base          float64 `json:"base"`
	Scaling       scaling `json:"scaling"`
	SeqLen        int     `json:"seq_len"`
	SeqLenSource  string  `json:"seq_len_source"`
}

type ropeAnswer struct {
	InvFreq            []float64   `json:"inv_freq"`
	AttentionFactor    float64     `json:"attention_factor"`
	SoftmaxScaleFactor float64     `json:"softmax_scale_factor"`
	QPositions         []int       `json:"q_positions"`
	QRotated           [][]float64 `json:"q_rotated"`
	KPositions         []int       `json:"k_positions"`
	KRotated           [][]float64 `json:"k_rotated"`
	Scores             [][]float64 `json:"scores"`
	Resolved           resolved    `json:"resolved"`
}

func problem(w http.ResponseWriter, status int, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]interface{}{"status": status, "detail": detail})
	w.Write(b)
}

func rotate(x []float64, cos, sin [][]float64, d int) [][]float64 {
	h := d / 2
	out := make([][]float64, len(cos))
	for i := range cos {
		o := make([]float64, d)
		for j := 0; j < h; j++ {
			o[j] = x[j]*cos[i][j] - x[j+h]*sin[i][j]
			o[j+h] = x[j+h]*cos[i][j] + x[j]*sin[i][j]
		}
		out[i] = o
	}
	return out
}

func rope(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		problem(w, http.StatusMethodNotAllowed, "this route takes POST")
		return
	}
	var req ropeRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		problem(w, http.StatusBadRequest, err.Error())
		return
	}
	d := req.HeadDim
	if d < 2 || d%2 != 0 || len(req.Q) != d || len(req.K) != d || len(req.Positions) == 0 {
		problem(w, http.StatusUnprocessableEntity, "head_dim even, q and k of head_dim numbers, positions")
		return
	}
	base := 10000.0
	if req.RopeTheta != nil {
		base = *req.RopeTheta
	}
	h := d / 2
	inv := make([]float64, h)
	for j := range inv {
		inv[j] = 1.0 / math.Pow(base, float64(2*j)/float64(d))
	}
	maxPos := 0
	cos := make([][]float64, len(req.Positions))
	sin := make([][]float64, len(req.Positions))
	for i, p := range req.Positions {
		if p > maxPos {
			maxPos = p
		}
		cos[i] = make([]float64, h)
		sin[i] = make([]float64, h)
		for j := range inv {
			a := float64(p) * inv[j]
			cos[i][j] = math.Cos(a)
			sin[i][j] = math.Sin(a)
		}
	}
	qr := rotate(req.Q, cos, sin, d)
	kr := rotate(req.K, cos, sin, d)
	scores := make([][]float64, len(qr))
	for i := range qr {
		scores[i] = make([]float64, len(kr))
		for j := range kr {
			dot := 0.0
			for c := 0; c < d; c++ {
				dot += qr[i][c] * kr[j][c]
			}
			scores[i][j] = dot
		}
	}
	ans := ropeAnswer{
		InvFreq: inv, AttentionFactor: 1, SoftmaxScaleFactor: 1,
		QPositions: req.Positions, QRotated: qr, KPositions: req.Positions, KRotated: kr,
		Scores: scores,
		Resolved: resolved{HeadDim: d, RotaryDim: d, Layout: "half", InvFreqSource: "computed",
			Base: base, Scaling: scaling{Type: "default"}, SeqLen: maxPos + 1,
			SeqLenSource: "largest position + 1"},
	}
	b, err := json.Marshal(&ans)
	if err != nil {
		problem(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.Write(b)
}

func main() {
	addr := "127.0.0.1:0"
	if len(os.Args) > 1 {
		addr = os.Args[1]
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "peer-go:", err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"ok"}`))
	})
	mux.HandleFunc("/rope", rope)
	fmt.Printf("listening on http://%s\n", ln.Addr())
	os.Stdout.Sync()
	if err := http.Serve(ln, mux); err != nil {
		fmt.Fprintln(os.Stderr, "peer-go:", err)
		os.Exit(1)
	}
}
