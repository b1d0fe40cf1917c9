package devcloud

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"k8s.io/apimachinery/pkg/types"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/klog/v2"
)

const tagNode = "k8s-node"

type route struct {
	Name             string            `json:"name"`
	DestinationCidr  string            `json:"destinationCidr"`
	TargetInstanceID string            `json:"targetInstanceId"`
	Blackhole        bool              `json:"blackhole,omitempty"`
	Description      string            `json:"description,omitempty"`
	Tags             map[string]string `json:"tags"`
}

func jsonUnmarshal(b []byte, out any) error { return json.Unmarshal(b, out) }

func (c *cloud) ListRoutes(ctx context.Context, cluster string) ([]*cloudprovider.Route, error) {
	items, err := listAll[route](ctx, c.api, "/routes", "tag="+url.QueryEscape(tagCluster+"="+cluster), "list routes")
	if err != nil {
		return nil, err
	}
	out := make([]*cloudprovider.Route, 0, len(items))
	for _, it := range items {
		r := &cloudprovider.Route{Name: it.Name, DestinationCIDR: it.DestinationCidr, Blackhole: it.Blackhole,
			TargetNode: types.NodeName(it.Tags[tagNode])}
		if r.TargetNode == "" {
			inst, err := c.byID(ctx, it.TargetInstanceID)
			if err != nil {
				return nil, err
			}
			if inst != nil {
				r.TargetNode = types.NodeName(inst.Name)
			}
		}
		out = append(out, r)
	}
	return out, nil
}

func (c *cloud) CreateRoute(ctx context.Context, cluster, nameHint string, r *cloudprovider.Route) error {
	node := string(r.TargetNode)
	inst, err := c.byName(ctx, node)
	if err != nil {
		return err
	}
	if gone(inst) {
		return fmt.Errorf("route target node %s has no devcloud instance: %w", node, cloudprovider.InstanceNotFound)
	}
	hint := nameHint
	if hint == "" {
		hint = node
	}
	name := routeName(cluster, hint, r.DestinationCIDR)
	body := route{Name: name, DestinationCidr: r.DestinationCIDR, TargetInstanceID: inst.ID,
		Description: "pod CIDR of node " + node + " (cluster " + cluster + ")",
		Tags:        map[string]string{tagCluster: cluster, tagNode: node}}
	res, err := c.api.do(ctx, http.MethodPost, "/routes", body)
	if err != nil {
		return fmt.Errorf("create route %s: %w", name, err)
	}
	if res.status == http.StatusCreated {
		klog.Infof("created route %s: %s via %s", name, r.DestinationCIDR, node)
		return nil
	}
	if res.status == http.StatusConflict && res.failure().Error.Code == "already_exists" {
		var existing route
		found, err := c.api.get(ctx, "/routes/"+url.PathEscape(name), "get route "+name, &existing)
		if err != nil {
			return err
		}
		if found && existing.DestinationCidr == r.DestinationCIDR && existing.TargetInstanceID == inst.ID {
			return nil
		}
		return fmt.Errorf("route %s exists with another destination or target", name)
	}
	return cloudError(fmt.Sprintf("create route %s (%s via %s)", name, r.DestinationCIDR, node), res)
}

func (c *cloud) DeleteRoute(ctx context.Context, cluster string, r *cloudprovider.Route) error {
	name := r.Name
	if name == "" {
		routes, err := c.ListRoutes(ctx, cluster)
		if err != nil {
			return err
		}
		for _, x := range routes {
			if x.DestinationCIDR == r.DestinationCIDR && x.TargetNode == r.TargetNode {
				name = x.Name
			}
		}
		if name == "" {
			return nil
		}
	}
	res, err := c.api.do(ctx, http.MethodDelete, "/routes/"+url.PathEscape(name), nil)
	if err != nil {
		return fmt.Errorf("delete route %s: %w", name, err)
	}
	if res.status == http.StatusNoContent || res.status == http.StatusNotFound {
		return nil
	}
	return cloudError("delete route "+name, res)
}
