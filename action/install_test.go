package action_test

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// releaseAssets are the assets of a release as .goreleaser.yaml names them:
// mcpconform_VERSION_OS_ARCH.tar.gz and checksums.txt.
func releaseAssets(version string, binary []byte) map[string][]byte {
	GinkgoHelper()
	name := fmt.Sprintf("mcpconform_%s_%s_%s.tar.gz", strings.TrimPrefix(version, "v"), runtime.GOOS, runtime.GOARCH)
	var archive strings.Builder
	gz := gzip.NewWriter(&archive)
	tw := tar.NewWriter(gz)
	for _, f := range []struct {
		name string
		data []byte
		mode int64
	}{{"README.md", []byte("mcpconform\n"), 0o644}, {"mcpconform", binary, 0o755}} {
		Expect(tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data))})).To(Succeed())
		_, err := tw.Write(f.data)
		Expect(err).NotTo(HaveOccurred())
	}
	Expect(tw.Close()).To(Succeed())
	Expect(gz.Close()).To(Succeed())
	sum := sha256.Sum256([]byte(archive.String()))
	other := sha256.Sum256([]byte("another platform's archive"))
	checksums := fmt.Sprintf("%s  mcpconform_%s_plan9_mips.tar.gz\n%s  %s\n",
		hex.EncodeToString(other[:]), strings.TrimPrefix(version, "v"), hex.EncodeToString(sum[:]), name)
	return map[string][]byte{name: []byte(archive.String()), "checksums.txt": []byte(checksums)}
}

// releasesServer serves releases as GitHub does, at /download/TAG/ASSET
// and /latest/download/ASSET, on loopback; it records what was asked.
func releasesServer(releases map[string]map[string][]byte, latest string) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Path)
		mu.Unlock()
		tag, asset := "", ""
		if rest, ok := strings.CutPrefix(r.URL.Path, "/latest/download/"); ok {
			tag, asset = latest, rest
		} else if rest, ok := strings.CutPrefix(r.URL.Path, "/download/"); ok {
			tag, asset, _ = strings.Cut(rest, "/")
		}
		data, ok := releases[tag][asset]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(data)
	}))
	DeferCleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), asked...)
	}
}

var _ = Describe("action/install.sh", func() {
	var binary []byte
	BeforeEach(func() {
		if _, err := exec.LookPath("curl"); err != nil {
			Skip("curl is not installed (every GitHub runner has it)")
		}
		var err error
		binary, err = os.ReadFile(exe)
		Expect(err).NotTo(HaveOccurred())
	})

	install := func(base string, env map[string]string) (result, string) {
		tmp := GinkgoT().TempDir()
		all := map[string]string{"GITHUB_ACTION_PATH": root, "RUNNER_TEMP": tmp, "GITHUB_OUTPUT": filepath.Join(tmp, "output"),
			"MCPCONFORM_RELEASES": base, "INPUT_FROM_SOURCE": "false"}
		for k, v := range env {
			all[k] = v
		}
		return runScript("install.sh", all), filepath.Join(tmp, "mcpconform-bin", "mcpconform")
	}

	It("downloads the release named, verifies it against checksums.txt, and installs the binary", func() {
		srv, asked := releasesServer(map[string]map[string][]byte{"v9.9.9": releaseAssets("v9.9.9", binary)}, "v9.9.9")
		res, bin := install(srv.URL, map[string]string{"INPUT_VERSION": "v9.9.9"})
		Expect(res.code).To(Equal(0), res.output)
		Expect(res.output).To(MatchRegexp(`mcpconform_9\.9\.9_\w+_\w+\.tar\.gz verified against checksums.txt`))
		Expect(bin).To(BeAnExistingFile())
		Expect(readOutputs(filepath.Join(filepath.Dir(filepath.Dir(bin)), "output"))).To(HaveKeyWithValue("bin", bin))
		Expect(asked()).To(HaveExactElements("/download/v9.9.9/checksums.txt", HavePrefix("/download/v9.9.9/mcpconform_9.9.9_")))
	})

	It("takes the action's ref when it is a release tag, else the latest release", func() {
		releases := map[string]map[string][]byte{"v1.2.3": releaseAssets("v1.2.3", binary), "v2.0.0": releaseAssets("v2.0.0", binary)}
		srv, asked := releasesServer(releases, "v2.0.0")
		res, _ := install(srv.URL, map[string]string{"ACTION_REF": "v1.2.3"})
		Expect(res.code).To(Equal(0), res.output)
		Expect(asked()).To(ContainElement(HavePrefix("/download/v1.2.3/mcpconform_1.2.3_")))
		res, _ = install(srv.URL, map[string]string{"ACTION_REF": "main"})
		Expect(res.code).To(Equal(0), res.output)
		Expect(asked()).To(ContainElement(HavePrefix("/latest/download/mcpconform_2.0.0_")))
	})

	It("refuses an archive whose checksum differs, and installs nothing", func() {
		assets := releaseAssets("v9.9.9", binary)
		for name, data := range assets {
			if strings.HasSuffix(name, ".tar.gz") {
				assets[name] = append(append([]byte(nil), data...), 0) // one byte more than what was signed off
			}
		}
		srv, _ := releasesServer(map[string]map[string][]byte{"v9.9.9": assets}, "v9.9.9")
		res, bin := install(srv.URL, map[string]string{"INPUT_VERSION": "v9.9.9"})
		Expect(res.code).To(Equal(2), res.output)
		Expect(res.output).To(ContainSubstring("checksum mismatch"))
		Expect(bin).NotTo(BeAnExistingFile())
	})

	DescribeTable("refuses with one line and exit 2",
		func(env map[string]string, want string) {
			srv, _ := releasesServer(map[string]map[string][]byte{"v9.9.9": releaseAssets("v9.9.9", binary)}, "v9.9.9")
			res, bin := install(srv.URL, env)
			Expect(res.code).To(Equal(2), res.output)
			Expect(strings.TrimSpace(res.output)).To(HavePrefix("mcpconform install: "))
			Expect(res.output).To(ContainSubstring(want))
			Expect(bin).NotTo(BeAnExistingFile())
		},
		Entry("a version that is no release tag", map[string]string{"INPUT_VERSION": "main"}, "no release tag"),
		Entry("a release that does not exist", map[string]string{"INPUT_VERSION": "v0.0.1"}, "cannot download"),
		Entry("a release without the runner's platform", map[string]string{"INPUT_VERSION": "v9.9.9", "RUNNER_ARCH": "ARM64", "RUNNER_OS": "Windows"}, "lists no archive for windows/arm64"),
		Entry("from-source neither true nor false", map[string]string{"INPUT_FROM_SOURCE": "yes"}, "from-source must be true or false"),
	)
})
