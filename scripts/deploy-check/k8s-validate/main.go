// Command k8s-validate reads Kubernetes manifests (YAML, `---`-separated, as `helm template`
// prints them) from stdin and decodes each strictly into its Go type from k8s.io/api (and the
// Prometheus operator's ServiceMonitor): an unknown field, a duplicated field, a value of the wrong
// type, a quantity that does not parse or a kind it does not know is an error. It prints one line
// per object (`apps/v1 Deployment name`) and exits 1 at the first error, naming the object.
//
// No cluster is reachable where this runs: this is the check short of an API server (it does not
// run the server's defaulting or validation of values, such as name formats).
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// kinds maps "apiVersion kind" to a constructor of its Go type.
var kinds = map[string]func() any{
	"v1 ConfigMap":                            func() any { return &corev1.ConfigMap{} },
	"v1 Secret":                               func() any { return &corev1.Secret{} },
	"v1 Service":                              func() any { return &corev1.Service{} },
	"v1 ServiceAccount":                       func() any { return &corev1.ServiceAccount{} },
	"v1 PersistentVolumeClaim":                func() any { return &corev1.PersistentVolumeClaim{} },
	"v1 Pod":                                  func() any { return &corev1.Pod{} },
	"apps/v1 Deployment":                      func() any { return &appsv1.Deployment{} },
	"policy/v1 PodDisruptionBudget":           func() any { return &policyv1.PodDisruptionBudget{} },
	"networking.k8s.io/v1 NetworkPolicy":      func() any { return &networkingv1.NetworkPolicy{} },
	"autoscaling/v2 HorizontalPodAutoscaler":  func() any { return &autoscalingv2.HorizontalPodAutoscaler{} },
	"monitoring.coreos.com/v1 ServiceMonitor": func() any { return &monitoringv1.ServiceMonitor{} },
}

type header struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
}

func main() {
	count, err := validate(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "k8s-validate: %v\n", err)
		os.Exit(1)
	}
	if count == 0 {
		fmt.Fprintln(os.Stderr, "k8s-validate: no manifest on stdin")
		os.Exit(1)
	}
}

func validate(in io.Reader, out io.Writer) (int, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(in))
	count := 0
	for {
		document, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return count, nil
		}
		if err != nil {
			return count, fmt.Errorf("reading YAML: %w", err)
		}
		if len(bytes.TrimSpace(stripComments(document))) == 0 {
			continue
		}
		// YAMLToJSONStrict refuses duplicate keys; the JSON is then decoded strictly.
		data, err := yaml.YAMLToJSONStrict(document)
		if err != nil {
			return count, fmt.Errorf("document %d: %w", count+1, err)
		}
		var head header
		if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &head); err != nil {
			return count, fmt.Errorf("document %d: %w", count+1, err)
		}
		name := fmt.Sprintf("%s %s %q", head.APIVersion, head.Kind, head.Metadata.Name)
		build, known := kinds[head.APIVersion+" "+head.Kind]
		if !known {
			return count, fmt.Errorf("%s: not a kind this check knows", name)
		}
		if head.Metadata.Name == "" {
			return count, fmt.Errorf("%s: metadata.name is empty", name)
		}
		object := build()
		strictErrors, err := kjson.UnmarshalStrict(data, object)
		if err != nil {
			return count, fmt.Errorf("%s: %w", name, err)
		}
		if len(strictErrors) > 0 {
			messages := make([]string, len(strictErrors))
			for i, strictError := range strictErrors {
				messages[i] = strictError.Error()
			}
			return count, fmt.Errorf("%s: %s", name, strings.Join(messages, "; "))
		}
		count++
		fmt.Fprintln(out, name)
	}
}

// stripComments drops comment-only lines (Helm prints `# Source: …` before each document).
func stripComments(document []byte) []byte {
	var kept [][]byte
	for _, line := range bytes.Split(document, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			kept = append(kept, line)
		}
	}
	return bytes.Join(kept, []byte("\n"))
}
