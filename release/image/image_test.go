package main

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// The image of a real mcpconform binary, read back from the layout: the
// platform, a non-root user, the entrypoint, and a layer whose binary runs.
func TestImage(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the image's binary runs on Linux")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "mcpconform")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-X main.toolVersion=9.9.9-test", "-o", bin, "./cmd/mcpconform")
	build.Dir = filepath.Join("..", "..")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "oci")
	if err := Build(map[string]string{runtime.GOARCH: bin}, "9.9.9-test", out); err != nil {
		t.Fatal(err)
	}

	p, err := layout.FromPath(out)
	if err != nil {
		t.Fatal(err)
	}
	index, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := index.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(manifest.Manifests) != 1 || manifest.Manifests[0].Platform.Architecture != runtime.GOARCH || manifest.Manifests[0].Platform.OS != "linux" {
		t.Fatalf("index: %+v", manifest.Manifests)
	}
	img, err := index.Image(manifest.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if user := cfg.Config.User; user == "" || strings.HasPrefix(user, "0") || strings.HasPrefix(user, "root") {
		t.Errorf("the image runs as %q: want a non-root user", user)
	}
	if got := strings.Join(cfg.Config.Entrypoint, " "); got != Binary {
		t.Errorf("entrypoint %q, want %s", got, Binary)
	}
	if cfg.Config.Labels["org.opencontainers.image.version"] != "9.9.9-test" {
		t.Errorf("labels: %v", cfg.Config.Labels)
	}

	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers: %d, %v", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	files := map[string]*tar.Header{}
	var inImage []byte
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = h
		if "/"+h.Name == Binary {
			if inImage, err = io.ReadAll(tr); err != nil {
				t.Fatal(err)
			}
		}
	}
	if h := files["etc/passwd"]; h == nil {
		t.Error("no /etc/passwd: the user has no name")
	}
	if h := files["work/"]; h == nil || h.Uid != nonRoot {
		t.Errorf("/work is not the non-root user's: %+v", h)
	}
	extracted := filepath.Join(dir, "from-image")
	if err := os.WriteFile(extracted, inImage, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := exec.Command(extracted, "version").CombinedOutput()
	if err != nil || !bytes.Contains(got, []byte("9.9.9-test")) {
		t.Fatalf("the image's binary: %v\n%s", err, got)
	}
}
