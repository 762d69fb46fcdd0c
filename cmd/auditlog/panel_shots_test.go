package main

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auditlog/auditlog/api"
	"github.com/auditlog/auditlog/audit"
	"github.com/auditlog/auditlog/internal/testkit/testenv"
)

// shotNames are the screenshots panel/e2e/shots.mjs takes and
// docs/screenshots holds.
var shotNames = []string{"list-wide", "operator-wide", "list-narrow", "filters-narrow", "operator-narrow"}

// TestPanelLayoutMatchesScreenshots draws the log at 1280 and 390 px wide
// (the list, the phone's filter sheet, the operator view) from the demo's
// fixed dataset at a fixed time, on each store, and compares every
// picture with the one committed in docs/screenshots: a layout that
// changes (a column lost on the phone, cards that grow, a header that
// wraps) fails until the pictures are looked at and written again with
// AUDITLOG_UPDATE_SCREENSHOTS=1 (from the embedded store's run). Both
// stores draw the same pictures: the same events in the same order.
func TestPanelLayoutMatchesScreenshots(t *testing.T) {
	node, chromium := panelTools(t)
	for _, store := range []string{"sqlite", "elasticsearch"} {
		t.Run(store, func(t *testing.T) { panelShots(t, node, chromium, store) })
	}
}

func panelShots(t *testing.T, node, chromium, store string) {
	vars := map[string]string{"AUDITLOG_HTTP_ADDR": "127.0.0.1:0", "AUDITLOG_DATA_DIR": t.TempDir(), "AUDITLOG_JWT_SECRET": "s3cret"}
	if store == "elasticsearch" {
		vars = esServeEnv(t, testenv.Name("auditlog-shots"))
	}
	// The demo's fixed dates (DemoEnd), kept for seven years by the
	// Enterprise plan: the pictures hold as the calendar moves on.
	vars["AUDITLOG_SEED"], vars["AUDITLOG_DEFAULT_PLAN"], vars["AUDITLOG_PERIODIC_EXPORT"] = "10000", "enterprise", "false"
	m := startMain(t, "serve", vars)
	if store == "elasticsearch" {
		refreshES(t, vars)
	}
	mint := func(role string) string {
		tok, err := api.MintToken([]byte("s3cret"), audit.Principal{UserID: "3a4b5c6d-7e8f-4a0b-8c1d-2e3f4a5b6c7d", Email: role + "@demo.example", Role: role,
			TenantID: demoTenant}, time.Hour, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	out := t.TempDir()
	cmd := exec.Command(node, "e2e/shots.mjs")
	cmd.Dir = filepath.Join("..", "..", "panel")
	cmd.Env = append(os.Environ(), "PANEL_BASE=http://"+m.Addr(), "PANEL_ADMIN_TOKEN="+mint(audit.RoleAdmin),
		"PANEL_SUPER_TOKEN="+mint(audit.RoleSuperadmin), "PANEL_SHOTS_OUT="+out, "PANEL_DEMO_END="+DemoEnd, "CHROMIUM="+chromium)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("panel/e2e/shots.mjs: %v\n%s", err, b)
	}
	want, _ := filepath.Abs("../../docs/screenshots")
	if os.Getenv("AUDITLOG_UPDATE_SCREENSHOTS") == "1" && store == "sqlite" {
		for _, n := range shotNames {
			b, err := os.ReadFile(filepath.Join(out, n+".png"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(want, n+".png"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for _, n := range shotNames {
		if err := sameShot(filepath.Join(want, n+".png"), filepath.Join(out, n+".png")); err != nil {
			t.Errorf("%s: %v (the pictures drawn now are in %s; if the change is meant, look at them and run with AUDITLOG_UPDATE_SCREENSHOTS=1)", n, err, out)
		}
	}
}

// sameShot compares two screenshots: the same size, and at most 0.5% of
// the pixels differing by more than a little in a channel, which
// absorbs anti-aliasing and keeps any moved or changed element (a row is
// about 1% of the picture) a difference.
func sameShot(wantPath, gotPath string) error {
	want, err := readPNG(wantPath)
	if err != nil {
		return err
	}
	got, err := readPNG(gotPath)
	if err != nil {
		return err
	}
	if want.Bounds() != got.Bounds() {
		return fmt.Errorf("size %v, want %v", got.Bounds().Size(), want.Bounds().Size())
	}
	b := want.Bounds()
	n, box := 0, image.Rectangle{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if pixelDiffers(want.At(x, y), got.At(x, y)) {
				n++
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	if share := float64(n) / float64(b.Dx()*b.Dy()); share > 0.005 {
		return fmt.Errorf("%.2f%% of the pixels differ, within %v", 100*share, box)
	}
	return nil
}

func pixelDiffers(a, b interface{ RGBA() (r, g, b, a uint32) }) bool {
	ar, ag, ab, _ := a.RGBA()
	br, bg, bb, _ := b.RGBA()
	d := func(x, y uint32) uint32 {
		if x > y {
			return (x - y) >> 8
		}
		return (y - x) >> 8
	}
	return max(d(ar, br), d(ag, bg), d(ab, bb)) > 48
}

func readPNG(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", strings.TrimPrefix(path, "../../"), err)
	}
	return img, nil
}

// TestSameShotTellsALayoutChange: anti-aliasing noise passes, a moved
// block of about a row fails, and so does another size.
func TestSameShotTellsALayoutChange(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, w, h int, paint func(img *image.RGBA)) string {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := range img.Pix {
			img.Pix[i] = 255
		}
		paint(img)
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := png.Encode(f, img); err != nil {
			t.Fatal(err)
		}
		return p
	}
	block := func(y0 int) func(img *image.RGBA) {
		return func(img *image.RGBA) {
			for y := y0; y < y0+8; y++ {
				for x := 0; x < 100; x++ {
					img.Set(x, y, color.RGBA{0, 0, 0, 255})
				}
			}
		}
	}
	base := write("base.png", 100, 100, block(10))
	noise := write("noise.png", 100, 100, func(img *image.RGBA) {
		block(10)(img)
		for x := 0; x < 100; x += 10 { // grey edges, as anti-aliasing draws
			img.Set(x, 9, color.RGBA{200, 200, 200, 255})
		}
	})
	moved := write("moved.png", 100, 100, block(12))
	other := write("other.png", 100, 101, block(10))
	if err := sameShot(base, noise); err != nil {
		t.Errorf("anti-aliasing: %v", err)
	}
	if err := sameShot(base, moved); err == nil || !strings.Contains(err.Error(), "4.00% of the pixels differ") {
		t.Errorf("a block moved by 2 px: %v", err)
	}
	if err := sameShot(base, other); err == nil || !strings.Contains(err.Error(), "size") {
		t.Errorf("another size: %v", err)
	}
}
