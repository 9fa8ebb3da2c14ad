package deploy_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agui-mock/agui-mock/internal/cmd"
	"github.com/agui-mock/agui-mock/server"
)

// manifest is the part of a Kubernetes object the checks below read.
type manifest struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name        string            `yaml:"name"`
		Annotations map[string]string `yaml:"annotations"`
	} `yaml:"metadata"`
	Spec yaml.Node `yaml:"spec"`
}

// deployment, service and ingress are the parts of their specs the checks read.
type (
	port struct {
		Name       string
		TargetPort string `yaml:"targetPort"`
	}
	probe struct {
		HTTPGet *struct{ Path, Port string } `yaml:"httpGet"`
		Exec    *struct{ Command []string }  `yaml:"exec"`
	}
	envVar struct {
		Name, Value string
		ValueFrom   *struct {
			SecretKeyRef *struct{ Name, Key string } `yaml:"secretKeyRef"`
		} `yaml:"valueFrom"`
	}
	deployment struct {
		Template struct {
			Spec struct {
				SecurityContext struct {
					RunAsNonRoot bool `yaml:"runAsNonRoot"`
					RunAsUser    int  `yaml:"runAsUser"`
				} `yaml:"securityContext"`
				Containers []struct {
					Image string
					Ports []struct {
						Name          string
						ContainerPort int `yaml:"containerPort"`
					}
					Env             []envVar
					ReadinessProbe  *probe `yaml:"readinessProbe"`
					LivenessProbe   *probe `yaml:"livenessProbe"`
					Resources       map[string]map[string]string
					SecurityContext struct {
						AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
						ReadOnlyRootFilesystem   bool  `yaml:"readOnlyRootFilesystem"`
					} `yaml:"securityContext"`
				}
			}
		}
	}
	service struct{ Ports []port }
	ingress struct {
		Rules []struct {
			HTTP struct {
				Paths []struct {
					Path     string
					PathType string `yaml:"pathType"`
					Backend  struct {
						Service struct {
							Name string
							Port struct{ Name string }
						}
					}
				}
			}
		}
	}
)

// readManifests parses every YAML document of deploy/kubernetes, by kind.
func readManifests(t *testing.T) map[string]manifest {
	t.Helper()
	files, err := filepath.Glob("kubernetes/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in deploy/kubernetes: %v", err)
	}
	byKind := map[string]manifest{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var m manifest
			if err := dec.Decode(&m); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if m.Kind == "" || m.APIVersion == "" {
				t.Fatalf("%s: a document without kind or apiVersion", file)
			}
			byKind[m.Kind] = m
		}
	}
	return byKind
}

func decodeSpec[T any](t *testing.T, m manifest) T {
	t.Helper()
	var spec T
	if err := m.Spec.Decode(&spec); err != nil {
		t.Fatalf("%s spec: %v", m.Kind, err)
	}
	return spec
}

// The manifests of a shared deployment must name the ports and paths the server
// serves, run as the image's user, and route by the header that names a test.
func TestKubernetesManifestsNameTheServersPortsAndPaths(t *testing.T) {
	byKind := readManifests(t)
	for _, kind := range []string{"Deployment", "Service", "Ingress", "Kustomization"} {
		if _, ok := byKind[kind]; !ok {
			t.Fatalf("deploy/kubernetes has no %s", kind)
		}
	}

	d := decodeSpec[deployment](t, byKind["Deployment"])
	pod := d.Template.Spec
	if !pod.SecurityContext.RunAsNonRoot || pod.SecurityContext.RunAsUser != 65532 {
		t.Errorf("the pod must run as the image's nonroot user 65532: %+v", pod.SecurityContext)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(pod.Containers))
	}
	c := pod.Containers[0]
	if !strings.HasPrefix(c.Image, "ghcr.io/agui-mock/agui-mock:") {
		t.Errorf("image %q", c.Image)
	}
	if len(c.Ports) != 1 || c.Ports[0].ContainerPort != 8000 {
		t.Fatalf("the container must expose the image's port 8000: %+v", c.Ports)
	}
	portName := c.Ports[0].Name
	// The admin API, health checks included, takes the token: the probes send it with
	// the image's own command, which reads it from the environment.
	for name, p := range map[string]*probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
		if p == nil || p.Exec == nil || !slices.Equal(p.Exec.Command, []string{"/usr/local/bin/agui-mock", "healthcheck"}) {
			t.Errorf("%s probe: want the image's agui-mock healthcheck, got %+v", name, p)
		}
	}
	if c.Resources["requests"]["memory"] == "" || c.Resources["limits"]["memory"] == "" {
		t.Errorf("the container needs memory requests and limits: %v", c.Resources)
	}
	if sc := c.SecurityContext; sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || !sc.ReadOnlyRootFilesystem {
		t.Errorf("the container must not escalate and must have a read-only root: %+v", sc)
	}
	tokenFromSecret := false
	for _, e := range c.Env {
		switch {
		case strings.HasSuffix(e.Name, "_TOKEN") && e.Value != "":
			t.Errorf("%s is written into the manifest; take it from a Secret", e.Name)
		case e.Name == "AGUI_MOCK_ADMIN_TOKEN":
			tokenFromSecret = e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && e.ValueFrom.SecretKeyRef.Name != "" && e.ValueFrom.SecretKeyRef.Key != ""
		}
	}
	if !tokenFromSecret {
		t.Errorf("the deployment must take AGUI_MOCK_ADMIN_TOKEN from a Secret: the Ingress publishes the admin API")
	}
	known := cmd.FlagVariables()
	for _, e := range c.Env {
		if e.Name != "GOMEMLIMIT" && !slices.Contains(known, e.Name) {
			t.Errorf("the container sets %s, which sets no flag (nor the Go runtime's memory limit)", e.Name)
		}
	}

	svc := decodeSpec[service](t, byKind["Service"])
	if len(svc.Ports) != 1 || svc.Ports[0].TargetPort != portName {
		t.Fatalf("the Service must target the container's port %q: %+v", portName, svc.Ports)
	}
	ing := byKind["Ingress"]
	if got, want := ing.Metadata.Annotations["nginx.ingress.kubernetes.io/upstream-hash-by"], nginxVariable(server.TestIDHeader); got != want {
		t.Errorf("the Ingress must hash %s: upstream-hash-by is %q", want, got)
	}
	if got := ing.Metadata.Annotations["nginx.ingress.kubernetes.io/proxy-buffering"]; got != "off" {
		t.Errorf("streams need proxy-buffering off, got %q", got)
	}
	// The Ingress publishes what tests call, and no more: not /metrics, not every path.
	var published []string
	for _, rule := range decodeSpec[ingress](t, ing).Rules {
		for _, p := range rule.HTTP.Paths {
			published = append(published, p.PathType+" "+p.Path)
		}
	}
	if want := []string{"Prefix /agui", "Prefix " + server.AdminPrefix}; !slices.Equal(published, want) {
		t.Errorf("the Ingress publishes %q, want %q", published, want)
	}
	for _, rule := range decodeSpec[ingress](t, ing).Rules {
		for _, p := range rule.HTTP.Paths {
			if b := p.Backend.Service; b.Name != byKind["Service"].Metadata.Name || b.Port.Name != svc.Ports[0].Name {
				t.Errorf("the Ingress must route to the Service's port %q: %+v", svc.Ports[0].Name, b)
			}
		}
	}
}

// nginxVariable is the nginx variable that holds a request header.
func nginxVariable(header string) string {
	return "$http_" + strings.ToLower(strings.ReplaceAll(header, "-", "_"))
}

func TestTheNginxConfigHashesTheTestIDAndDoesNotBufferStreams(t *testing.T) {
	data, err := os.ReadFile("nginx/agui-mock.conf")
	if err != nil {
		t.Fatal(err)
	}
	conf := string(data)
	for _, want := range []string{
		"hash " + nginxVariable(server.TestIDHeader) + " consistent;",
		"proxy_buffering off;",
		"proxy_http_version 1.1;",
		"proxy_next_upstream off;",
	} {
		if !regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(want)).MatchString(conf) {
			t.Errorf("deploy/nginx/agui-mock.conf lacks %q", want)
		}
	}
}
