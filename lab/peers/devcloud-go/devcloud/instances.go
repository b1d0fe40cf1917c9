package devcloud

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	cloudprovider "k8s.io/cloud-provider"
)

const scheme = "devcloud://"

type address struct {
	Type    string `json:"type"`
	Address string `json:"address"`
}

type instance struct {
	ID        string            `json:"id"`
	Name      string            `json:"name"`
	Type      string            `json:"type"`
	Zone      string            `json:"zone"`
	Region    string            `json:"region"`
	Addresses []address         `json:"addresses"`
	State     string            `json:"state"`
	Labels    map[string]string `json:"labels"`
}

func instanceIDOf(providerID string) (string, bool) {
	if !strings.HasPrefix(providerID, scheme) {
		return "", false
	}
	id := strings.TrimPrefix(providerID, scheme)
	return id, id != "" && !strings.Contains(id, "/")
}

func (c *cloud) byID(ctx context.Context, id string) (*instance, error) {
	var inst instance
	found, err := c.api.get(ctx, "/instances/"+url.PathEscape(id), "get instance "+id, &inst)
	if err != nil || !found {
		return nil, err
	}
	return &inst, nil
}

func (c *cloud) byName(ctx context.Context, name string) (*instance, error) {
	var inst instance
	found, err := c.api.get(ctx, "/instances/by-name/"+url.PathEscape(name), "get instance named "+name, &inst)
	if err != nil || !found {
		return nil, err
	}
	return &inst, nil
}

// lookup finds a node's instance by providerID, else by name; nil when there is none.
func (c *cloud) lookup(ctx context.Context, node *v1.Node) (*instance, error) {
	if node.Spec.ProviderID != "" {
		id, ok := instanceIDOf(node.Spec.ProviderID)
		if !ok {
			return nil, fmt.Errorf("node %s: providerID %q is not devcloud://<instance id>", node.Name, node.Spec.ProviderID)
		}
		return c.byID(ctx, id)
	}
	return c.byName(ctx, node.Name)
}

func gone(inst *instance) bool { return inst == nil || inst.State == "terminated" }

func (c *cloud) InstanceExists(ctx context.Context, node *v1.Node) (bool, error) {
	inst, err := c.lookup(ctx, node)
	if err != nil {
		return false, err
	}
	return !gone(inst), nil
}

func (c *cloud) InstanceShutdown(ctx context.Context, node *v1.Node) (bool, error) {
	inst, err := c.lookup(ctx, node)
	if err != nil {
		return false, err
	}
	if gone(inst) {
		return false, cloudprovider.InstanceNotFound
	}
	return inst.State == "stopped", nil
}

var addressTypes = map[string]bool{"Hostname": true, "ExternalIP": true, "InternalIP": true, "ExternalDNS": true, "InternalDNS": true}

func (c *cloud) InstanceMetadata(ctx context.Context, node *v1.Node) (*cloudprovider.InstanceMetadata, error) {
	inst, err := c.lookup(ctx, node)
	if err != nil {
		return nil, err
	}
	if gone(inst) {
		return nil, cloudprovider.InstanceNotFound
	}
	md := &cloudprovider.InstanceMetadata{
		ProviderID:       scheme + inst.ID,
		InstanceType:     inst.Type,
		Zone:             inst.Zone,
		Region:           inst.Region,
		AdditionalLabels: map[string]string{},
	}
	for _, a := range inst.Addresses {
		if addressTypes[a.Type] && a.Address != "" {
			md.NodeAddresses = append(md.NodeAddresses, v1.NodeAddress{Type: v1.NodeAddressType(a.Type), Address: a.Address})
		}
	}
	for k, v := range inst.Labels {
		if isLabelToken(k, false) && isLabelToken(v, true) {
			md.AdditionalLabels[c.cfg.LabelPrefix+k] = v
		}
	}
	return md, nil
}

// Zones (never called by the node controller while InstancesV2 is supported).

func (c *cloud) GetZone(context.Context) (cloudprovider.Zone, error) {
	if c.cfg.Zone == "" {
		return cloudprovider.Zone{}, fmt.Errorf(`cloud config has no "zone"`)
	}
	return cloudprovider.Zone{FailureDomain: c.cfg.Zone, Region: c.cfg.Region}, nil
}

func (c *cloud) zoneOf(inst *instance, err error) (cloudprovider.Zone, error) {
	if err != nil {
		return cloudprovider.Zone{}, err
	}
	if gone(inst) {
		return cloudprovider.Zone{}, cloudprovider.InstanceNotFound
	}
	return cloudprovider.Zone{FailureDomain: inst.Zone, Region: inst.Region}, nil
}

func (c *cloud) GetZoneByProviderID(ctx context.Context, providerID string) (cloudprovider.Zone, error) {
	id, ok := instanceIDOf(providerID)
	if !ok {
		return cloudprovider.Zone{}, fmt.Errorf("providerID %q is not devcloud://<instance id>", providerID)
	}
	return c.zoneOf(c.byID(ctx, id))
}

func (c *cloud) GetZoneByNodeName(ctx context.Context, name types.NodeName) (cloudprovider.Zone, error) {
	return c.zoneOf(c.byName(ctx, string(name)))
}
