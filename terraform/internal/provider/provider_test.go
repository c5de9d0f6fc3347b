package provider

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gateway-keys/terraform-provider-gatewaykeys/internal/account"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// The acceptance tests run the provider in this process under the real `tofu` binary
// (TF_ACC_TERRAFORM_PATH), against a real gateway: test/terraform/acceptance.test.ts starts one and
// runs `go test` with GATEWAY_BASE_URL and GATEWAY_PROVISIONING_KEY set. TF_ACC=1 is required, as
// for every provider; without it the tests skip (and that jest test fails on any skip).

var providerFactories = factoriesWith(time.Now)

// factoriesWith serves the provider with the clock `now`, as NewWithClock takes it.
func factoriesWith(now func() time.Time) map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"gatewaykeys": providerserver.NewProtocol6WithError(NewWithClock("test", now)()),
	}
}

// testClock is the system time moved on by what a test says has passed: scheduled rotation is
// tested by moving it, not by sleeping. The provider runs in this process, so the test hands it
// this clock (factoriesWith(clock.now)) rather than any setting it would read.
type testClock struct{ passed atomic.Int64 }

func (c *testClock) now() time.Time { return time.Now().Add(time.Duration(c.passed.Load())) }

// pass makes `d` more time seem to have passed.
func (c *testClock) pass(d time.Duration) { c.passed.Add(int64(d)) }

// gateway is the account API of the test gateway, for checks behind Terraform's back.
func gateway(t *testing.T) *account.Client {
	t.Helper()
	client, err := account.New(os.Getenv(BaseURLVariable), os.Getenv(ProvisioningKeyVariable), "acceptance-test", 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

func requireEnvironment(t *testing.T) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		return // resource.Test skips, saying why
	}
	for _, name := range []string{BaseURLVariable, ProvisioningKeyVariable, "TF_ACC_TERRAFORM_PATH"} {
		if os.Getenv(name) == "" {
			t.Fatalf("%s is not set: run these tests through `npm test` (test/terraform/acceptance.test.ts), which starts a gateway and finds tofu", name)
		}
	}
}

// seenSecrets are the key secrets the tests saw in state; TestMain scans Terraform's log for them.
var seenSecrets sync.Map

// captureAttribute copies an attribute of a resource in state into target (and remembers a secret).
func captureAttribute(resourceName, attribute string, target *string) func(*terraform.State) error {
	return func(state *terraform.State) error {
		res, ok := state.RootModule().Resources[resourceName]
		if !ok {
			return fmt.Errorf("%s is not in the state", resourceName)
		}
		value, ok := res.Primary.Attributes[attribute]
		if !ok || value == "" {
			return fmt.Errorf("%s.%s is not set", resourceName, attribute)
		}
		*target = value
		if attribute == "secret" {
			seenSecrets.Store(value, true)
		}
		return nil
	}
}

// modelCall makes one model request with a key's secret and returns the status.
func modelCall(secret string) (int, error) {
	body := bytes.NewBufferString(`{"model":"echo-1","input":"hello"}`)
	req, err := http.NewRequest(http.MethodPost, strings.TrimRight(os.Getenv(BaseURLVariable), "/")+"/v1/responses", body)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// traffic calls a model without pause with whatever secret it is given last, like a consumer
// that moves to the new secret once it has it, and counts every answer.
type traffic struct {
	secret  atomic.Value
	stop    chan struct{}
	done    chan struct{}
	mu      sync.Mutex
	byCode  map[int]int
	failure error
}

func startTraffic(secret string) *traffic {
	tr := &traffic{stop: make(chan struct{}), done: make(chan struct{}), byCode: map[int]int{}}
	tr.secret.Store(secret)
	go func() {
		defer close(tr.done)
		for {
			select {
			case <-tr.stop:
				return
			default:
			}
			status, err := modelCall(tr.secret.Load().(string))
			tr.mu.Lock()
			if err != nil && tr.failure == nil {
				tr.failure = err
			}
			tr.byCode[status]++
			tr.mu.Unlock()
		}
	}()
	return tr
}

// finish stops the traffic and returns how many answers had each status.
func (tr *traffic) finish() (map[int]int, error) {
	close(tr.stop)
	<-tr.done
	return tr.byCode, tr.failure
}

func keyOf(t *testing.T, keyID string) (state string, version int, name string) {
	t.Helper()
	record, err := gateway(t).Get(context.Background(), keyID)
	if err != nil {
		t.Fatalf("reading %s from the gateway: %v", keyID, err)
	}
	return string(record.State), record.Version, record.Name
}

// SeenSecretsVariable names a file where TestMain writes every key secret the tests saw (0600),
// so the runner (test/terraform/acceptance.test.ts) can look for them in tofu's log and ours.
const SeenSecretsVariable = "GATEWAY_KEYS_SEEN_SECRETS_FILE"

func TestMain(m *testing.M) {
	code := m.Run()
	if file := os.Getenv(SeenSecretsVariable); file != "" {
		var secrets []string
		seenSecrets.Range(func(secret, _ any) bool {
			secrets = append(secrets, secret.(string))
			return true
		})
		if err := os.WriteFile(file, []byte(strings.Join(secrets, "\n")), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}
