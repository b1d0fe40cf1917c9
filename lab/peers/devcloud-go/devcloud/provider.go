// Package devcloud is a test-only Go cloud provider for devcloud that answers what wasm-ccm's devcloud plugin
// (plugins/devcloud) answers: same providerIDs, labels, LB names, tags, annotations and route names. It exists so
// the parity test can run the upstream cloud-controller-manager against the same cloud.
package devcloud

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	cloudprovider "k8s.io/cloud-provider"
)

const ProviderName = "devcloud"

type config struct {
	URL         string `json:"url"`
	Region      string `json:"region"`
	Zone        string `json:"zone"`
	TimeoutMs   int    `json:"timeoutMs"`
	LabelPrefix string `json:"labelPrefix"`
}

type cloud struct {
	cfg config
	api *client
}

func init() {
	cloudprovider.RegisterCloudProvider(ProviderName, func(r io.Reader) (cloudprovider.Interface, error) {
		if r == nil {
			return nil, fmt.Errorf("devcloud: --cloud-config is required")
		}
		return newCloud(r)
	})
}

// newCloud reads the JSON cloud config strictly (like the plugin) and the bearer token from $DEVCLOUD_TOKEN_FILE or
// $DEVCLOUD_TOKEN (the plugin gets it from the host's credentials file instead).
func newCloud(r io.Reader) (*cloud, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var cfg config
	if err := dec.Decode(&cfg); err != nil {
		return nil, fmt.Errorf("cloud config: %w", err)
	}
	if cfg.URL == "" || cfg.Region == "" {
		return nil, fmt.Errorf(`cloud config: "url" and "region" are required`)
	}
	cfg.URL = strings.TrimSuffix(cfg.URL, "/")
	if cfg.LabelPrefix == "" {
		cfg.LabelPrefix = "devcloud.example/"
	}
	timeout := 10 * time.Second
	if cfg.TimeoutMs > 0 {
		timeout = time.Duration(cfg.TimeoutMs) * time.Millisecond
	}
	token := os.Getenv("DEVCLOUD_TOKEN")
	if file := os.Getenv("DEVCLOUD_TOKEN_FILE"); file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("devcloud token: %w", err)
		}
		token = strings.TrimSpace(string(b))
	}
	if token == "" {
		return nil, fmt.Errorf("devcloud: set DEVCLOUD_TOKEN_FILE or DEVCLOUD_TOKEN")
	}
	return &cloud{cfg: cfg, api: &client{base: cfg.URL, token: token, http: &http.Client{Timeout: timeout}}}, nil
}

func (c *cloud) Initialize(cloudprovider.ControllerClientBuilder, <-chan struct{}) {}
func (c *cloud) LoadBalancer() (cloudprovider.LoadBalancer, bool)                  { return c, true }
func (c *cloud) Instances() (cloudprovider.Instances, bool)                        { return nil, false }
func (c *cloud) InstancesV2() (cloudprovider.InstancesV2, bool)                    { return c, true }
func (c *cloud) Zones() (cloudprovider.Zones, bool)                                { return c, true }
func (c *cloud) Clusters() (cloudprovider.Clusters, bool)                          { return nil, false }
func (c *cloud) Routes() (cloudprovider.Routes, bool)                              { return c, true }
func (c *cloud) ProviderName() string                                              { return ProviderName }
func (c *cloud) HasClusterID() bool                                                { return true }
