// Command image builds mcpconform's container image from the release's Linux
// binaries, without Docker: an OCI image index for linux/amd64 and
// linux/arm64, each image one layer over nothing (the static binary, a
// passwd file naming the non-root user it runs as, a working directory and
// /tmp), written as an OCI image layout directory that `crane push`,
// `skopeo copy oci:DIR …` or `docker load` (after `crane` converts it) take.
// The Dockerfile at the repository root builds the same shape with Docker.
//
//	go run ./image -dist ../dist -version 1.2.3 -out ../dist/oci
package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// nonRoot is the user the image runs as (distroless's "nonroot").
const nonRoot = 65532

// Binary is where the image keeps mcpconform.
const Binary = "/usr/local/bin/mcpconform"

func main() {
	dist := flag.String("dist", "dist", "GoReleaser's dist directory, holding mcpconform_linux_amd64*/mcpconform and mcpconform_linux_arm64*/mcpconform")
	version := flag.String("version", "", "the version the image is labelled with")
	out := flag.String("out", "dist/oci", "the OCI image layout directory to write")
	flag.Parse()
	if *version == "" {
		fmt.Fprintln(os.Stderr, "image: -version is required")
		os.Exit(2)
	}
	binaries := map[string]string{}
	for _, arch := range []string{"amd64", "arm64"} {
		matches, _ := filepath.Glob(filepath.Join(*dist, "mcpconform_linux_"+arch+"*", "mcpconform"))
		if len(matches) != 1 {
			fmt.Fprintf(os.Stderr, "image: want one linux/%s binary under %s, found %d\n", arch, *dist, len(matches))
			os.Exit(1)
		}
		binaries[arch] = matches[0]
	}
	if err := Build(binaries, *version, *out); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
	fmt.Println("image: wrote", *out)
}

// Build writes an OCI layout at out holding one image per architecture
// (arch → the path of its static mcpconform binary).
func Build(binaries map[string]string, version, out string) error {
	var index v1.ImageIndex = empty.Index
	index = mutate.IndexMediaType(index, types.OCIImageIndex)
	for _, arch := range []string{"amd64", "arm64"} {
		path, ok := binaries[arch]
		if !ok {
			continue
		}
		img, err := Image(path, arch, version)
		if err != nil {
			return fmt.Errorf("linux/%s: %w", arch, err)
		}
		index = mutate.AppendManifests(index, mutate.IndexAddendum{Add: img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: arch}}})
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	_, err := layout.Write(out, index)
	return err
}

// Image is the image of one architecture.
func Image(binary, arch, version string) (v1.Image, error) {
	bin, err := os.ReadFile(binary)
	if err != nil {
		return nil, err
	}
	files, err := rootFS(bin)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(files)), nil },
		tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	if img, err = mutate.AppendLayers(img, layer); err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", arch
	cfg.Config.User = fmt.Sprintf("%d:%d", nonRoot, nonRoot)
	cfg.Config.Entrypoint = []string{Binary}
	cfg.Config.WorkingDir = "/work"
	cfg.Config.Env = []string{"PATH=/usr/local/bin", "HOME=/work"}
	cfg.Config.Labels = map[string]string{
		"org.opencontainers.image.title":   "mcpconform",
		"org.opencontainers.image.version": version,
		"org.opencontainers.image.source":  "https://github.com/mcpconform/mcpconform",
	}
	return mutate.ConfigFile(img, cfg)
}

// rootFS is the layer's tar: the binary, a passwd and group naming the
// non-root user, its home as the working directory, and /tmp. Times are
// fixed, so a rebuild of the same binary is the same layer.
func rootFS(bin []byte) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	epoch := time.Unix(0, 0)
	dir := func(name string, mode int64, uid int) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: mode, Uid: uid, Gid: uid, ModTime: epoch})
	}
	file := func(name string, mode int64, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(data)), ModTime: epoch}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/work:/sbin/nologin\n", nonRoot, nonRoot)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", nonRoot)
	err := errors.Join(
		dir("etc", 0o755, 0), file("etc/passwd", 0o644, []byte(passwd)), file("etc/group", 0o644, []byte(group)),
		dir("usr", 0o755, 0), dir("usr/local", 0o755, 0), dir("usr/local/bin", 0o755, 0),
		file(Binary[1:], 0o755, bin),
		dir("work", 0o755, nonRoot), dir("tmp", 0o1777, 0),
	)
	if err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
