package devcloud

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

const (
	tagCluster = "k8s-cluster"
	tagService = "k8s-service"
	tagUID     = "k8s-service-uid"

	annotationPrefix = "service.beta.kubernetes.io/devcloud-"
	annVIP           = annotationPrefix + "vip"
	annDescription   = annotationPrefix + "description"
	annSelector      = annotationPrefix + "backend-label-selector"
	annHealthCheck   = annotationPrefix + "health-check-port"
	maxDescription   = 255
)

var knownAnnotations = []string{annVIP, annDescription, annSelector, annHealthCheck}

type listener struct {
	Protocol string `json:"protocol"`
	Port     int32  `json:"port"`
	NodePort int32  `json:"nodePort"`
}

type lbSpec struct {
	Name                string            `json:"name,omitempty"`
	VIP                 string            `json:"vip,omitempty"`
	Listeners           []listener        `json:"listeners"`
	BackendInstanceIDs  []string          `json:"backendInstanceIds"`
	SourceRanges        []string          `json:"sourceRanges"`
	HealthCheckNodePort *int32            `json:"healthCheckNodePort"`
	Tags                map[string]string `json:"tags"`
	Description         string            `json:"description"`
}

type loadBalancer struct {
	Name string            `json:"name"`
	VIP  string            `json:"vip"`
	Tags map[string]string `json:"tags"`
}

type requirement struct {
	key, value string
	hasValue   bool
}

type lbOptions struct {
	vip, vipSource, description string
	selector                    []requirement
	healthCheckNodePort         int32
}

func invalid(format string, args ...any) error { return fmt.Errorf(format, args...) }

func serviceKey(svc *v1.Service) string { return svc.Namespace + "/" + svc.Name }

func parsePort(text string) int32 {
	s := strings.TrimSpace(text)
	if s == "" || len(s) > 5 {
		return 0
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0
		}
	}
	n, _ := strconv.Atoi(s)
	if n < 1 || n > 65535 {
		return 0
	}
	return int32(n)
}

func parseOptions(svc *v1.Service, cluster string) (*lbOptions, error) {
	opts := &lbOptions{}
	keys := make([]string, 0, len(svc.Annotations))
	for k := range svc.Annotations {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.HasPrefix(k, annotationPrefix) && !contains(knownAnnotations, k) {
			return nil, invalid("unknown annotation %s (known: %s)", k, strings.Join(knownAnnotations, ", "))
		}
	}
	if len(svc.Spec.IPFamilies) > 0 && !contains(families(svc), "IPv4") {
		return nil, invalid("spec.ipFamilies %s: devcloud load balancers are IPv4 only", strings.Join(families(svc), ","))
	}
	for i, p := range svc.Spec.Ports {
		if p.NodePort <= 0 {
			return nil, invalid("spec.ports[%d] has no nodePort: devcloud load balancers forward to node ports", i)
		}
	}
	if vip, ok := svc.Annotations[annVIP]; ok {
		if !isIPv4(vip) {
			return nil, invalid("annotation %s: %q is not an IPv4 address", annVIP, vip)
		}
		opts.vip, opts.vipSource = vip, "annotation "+annVIP
	}
	if req := svc.Spec.LoadBalancerIP; req != "" {
		if !isIPv4(req) {
			return nil, invalid("spec.loadBalancerIP: %q is not an IPv4 address (devcloud VIPs are IPv4)", req)
		}
		if opts.vip != "" && opts.vip != req {
			return nil, invalid("annotation %s %q and spec.loadBalancerIP %q differ", annVIP, opts.vip, req)
		}
		if opts.vip == "" {
			opts.vip, opts.vipSource = req, "spec.loadBalancerIP"
		}
	}
	if d, ok := svc.Annotations[annDescription]; ok {
		if utf16Len(d) > maxDescription {
			return nil, invalid("annotation %s: longer than %d characters", annDescription, maxDescription)
		}
		opts.description = d
	} else {
		text := "Kubernetes service " + serviceKey(svc) + " (cluster " + cluster + ")"
		text = truncateUTF16(text, maxDescription)
		opts.description = text
	}
	if sel, ok := svc.Annotations[annSelector]; ok {
		for _, raw := range strings.Split(sel, ",") {
			part := strings.TrimSpace(raw)
			key, value, hasValue := part, "", false
			if eq := strings.Index(part, "="); eq >= 0 {
				key, value, hasValue = strings.TrimSpace(part[:eq]), strings.TrimSpace(part[eq+1:]), true
			}
			if !isLabelKey(key) || (hasValue && !isLabelToken(value, true)) {
				what := fmt.Sprintf("%q", part)
				if part == "" {
					what = "an empty requirement"
				}
				return nil, invalid("annotation %s: %q: %s is not key or key=value", annSelector, sel, what)
			}
			opts.selector = append(opts.selector, requirement{key, value, hasValue})
		}
	}
	if svc.Spec.ExternalTrafficPolicy == v1.ServiceExternalTrafficPolicyLocal && svc.Spec.HealthCheckNodePort > 0 {
		opts.healthCheckNodePort = svc.Spec.HealthCheckNodePort
	} else if hc, ok := svc.Annotations[annHealthCheck]; ok {
		port := parsePort(hc)
		if port == 0 {
			return nil, invalid("annotation %s: %q is not a port (1-65535)", annHealthCheck, hc)
		}
		opts.healthCheckNodePort = port
	}
	return opts, nil
}

func families(svc *v1.Service) []string {
	out := make([]string, len(svc.Spec.IPFamilies))
	for i, f := range svc.Spec.IPFamilies {
		out[i] = string(f)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (o *lbOptions) selects(node *v1.Node) bool {
	for _, r := range o.selector {
		v, ok := node.Labels[r.key]
		if !ok || (r.hasValue && v != r.value) {
			return false
		}
	}
	return true
}

func lbPath(name string) string { return "/load-balancers/" + url.PathEscape(name) }

func statusOf(lb *loadBalancer) *v1.LoadBalancerStatus {
	mode := v1.LoadBalancerIPModeVIP
	return &v1.LoadBalancerStatus{Ingress: []v1.LoadBalancerIngress{{IP: lb.VIP, IPMode: &mode}}}
}

func owned(lb *loadBalancer, cluster string, svc *v1.Service) bool {
	return lb.Tags[tagCluster] == cluster && lb.Tags[tagUID] == string(svc.UID)
}

func (c *cloud) GetLoadBalancerName(_ context.Context, cluster string, svc *v1.Service) string {
	return loadBalancerName(cluster, svc.Namespace, svc.Name)
}

func (c *cloud) getLB(ctx context.Context, name string) (*loadBalancer, error) {
	var lb loadBalancer
	found, err := c.api.get(ctx, lbPath(name), "get load balancer "+name, &lb)
	if err != nil || !found {
		return nil, err
	}
	return &lb, nil
}

func (c *cloud) GetLoadBalancer(ctx context.Context, cluster string, svc *v1.Service) (*v1.LoadBalancerStatus, bool, error) {
	lb, err := c.getLB(ctx, loadBalancerName(cluster, svc.Namespace, svc.Name))
	if err != nil || lb == nil || !owned(lb, cluster, svc) {
		return nil, false, err
	}
	return statusOf(lb), true, nil
}

func (c *cloud) backends(ctx context.Context, nodes []*v1.Node, opts *lbOptions) ([]string, error) {
	seen := map[string]bool{}
	ids := []string{}
	for _, node := range nodes {
		if !opts.selects(node) {
			continue
		}
		id := ""
		if node.Spec.ProviderID != "" {
			var ok bool
			if id, ok = instanceIDOf(node.Spec.ProviderID); !ok {
				klog.Warningf("node %s is not a devcloud instance; not a backend", node.Name)
				id = ""
			}
		} else {
			inst, err := c.byName(ctx, node.Name)
			if err != nil {
				return nil, err
			}
			if !gone(inst) {
				id = inst.ID
			}
		}
		if id != "" && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

func specOf(cluster string, svc *v1.Service, opts *lbOptions, backends []string) lbSpec {
	spec := lbSpec{
		Listeners:          []listener{},
		BackendInstanceIDs: backends,
		SourceRanges:       []string{},
		Tags:               map[string]string{tagCluster: cluster, tagService: serviceKey(svc), tagUID: string(svc.UID)},
		Description:        opts.description,
	}
	for _, p := range svc.Spec.Ports {
		proto := string(p.Protocol)
		if proto == "" {
			proto = "TCP"
		}
		spec.Listeners = append(spec.Listeners, listener{Protocol: proto, Port: p.Port, NodePort: p.NodePort})
	}
	for _, r := range svc.Spec.LoadBalancerSourceRanges {
		spec.SourceRanges = append(spec.SourceRanges, strings.TrimSpace(r))
	}
	if opts.healthCheckNodePort > 0 {
		hc := opts.healthCheckNodePort
		spec.HealthCheckNodePort = &hc
	}
	return spec
}

func writeError(what string, r *result, opts *lbOptions) error {
	if r.status == http.StatusBadRequest || r.status == http.StatusConflict {
		f := r.failure().Error
		if strings.HasPrefix(f.Field, "sourceRanges") {
			return invalid("spec.loadBalancerSourceRanges: %s", f.Message)
		}
		if f.Field == "vip" || f.Code == "vip_in_use" {
			return invalid("%s %s: %s", opts.vipSource, opts.vip, f.Message)
		}
	}
	return cloudError(what, r)
}

func (c *cloud) ensure(ctx context.Context, cluster string, svc *v1.Service, nodes []*v1.Node, create bool) (*v1.LoadBalancerStatus, error) {
	opts, err := parseOptions(svc, cluster)
	if err != nil {
		return nil, err
	}
	ids, err := c.backends(ctx, nodes, opts)
	if err != nil {
		return nil, err
	}
	name := loadBalancerName(cluster, svc.Namespace, svc.Name)
	spec := specOf(cluster, svc, opts, ids)
	lb, err := c.getLB(ctx, name)
	if err != nil {
		return nil, err
	}
	if lb == nil {
		if !create {
			return nil, fmt.Errorf("load balancer %s does not exist; EnsureLoadBalancer creates it", name)
		}
		body := spec
		body.Name, body.VIP = name, opts.vip
		r, err := c.api.do(ctx, http.MethodPost, "/load-balancers", body)
		if err != nil {
			return nil, fmt.Errorf("create load balancer %s: %w", name, err)
		}
		if r.status == http.StatusCreated {
			var created loadBalancer
			if err := jsonUnmarshal(r.body, &created); err != nil {
				return nil, fmt.Errorf("create load balancer %s: %w", name, err)
			}
			klog.Infof("created load balancer %s for %s", name, serviceKey(svc))
			return statusOf(&created), nil
		}
		if r.status != http.StatusConflict || r.failure().Error.Code != "already_exists" {
			return nil, writeError("create load balancer "+name, r, opts)
		}
		if lb, err = c.getLB(ctx, name); err != nil || lb == nil {
			return nil, fmt.Errorf("get load balancer %s after a conflicting create: %v", name, err)
		}
	}
	if lb.Tags[tagCluster] != cluster || lb.Tags[tagService] != serviceKey(svc) {
		return nil, fmt.Errorf("load balancer %s belongs to cluster %q service %q, not to %s of cluster %q; not taking it over",
			name, lb.Tags[tagCluster], lb.Tags[tagService], serviceKey(svc), cluster)
	}
	if opts.vip != "" && opts.vip != lb.VIP {
		return nil, invalid("%s asks for %s but load balancer %s has %s (a VIP cannot change; delete and re-create the Service)",
			opts.vipSource, opts.vip, name, lb.VIP)
	}
	r, err := c.api.do(ctx, http.MethodPut, lbPath(name), spec)
	if err != nil {
		return nil, fmt.Errorf("update load balancer %s: %w", name, err)
	}
	if r.status != http.StatusOK {
		return nil, writeError("update load balancer "+name, r, opts)
	}
	var after loadBalancer
	if err := jsonUnmarshal(r.body, &after); err != nil {
		return nil, fmt.Errorf("update load balancer %s: %w", name, err)
	}
	return statusOf(&after), nil
}

func (c *cloud) EnsureLoadBalancer(ctx context.Context, cluster string, svc *v1.Service, nodes []*v1.Node) (*v1.LoadBalancerStatus, error) {
	return c.ensure(ctx, cluster, svc, nodes, true)
}

func (c *cloud) UpdateLoadBalancer(ctx context.Context, cluster string, svc *v1.Service, nodes []*v1.Node) error {
	_, err := c.ensure(ctx, cluster, svc, nodes, false)
	return err
}

func (c *cloud) EnsureLoadBalancerDeleted(ctx context.Context, cluster string, svc *v1.Service) error {
	name := loadBalancerName(cluster, svc.Namespace, svc.Name)
	lb, err := c.getLB(ctx, name)
	if err != nil || lb == nil {
		return err
	}
	if !owned(lb, cluster, svc) {
		klog.Infof("load balancer %s is not Service %s's (uid %s); left alone", name, serviceKey(svc), svc.UID)
		return nil
	}
	r, err := c.api.do(ctx, http.MethodDelete, lbPath(name), nil)
	if err != nil {
		return fmt.Errorf("delete load balancer %s: %w", name, err)
	}
	if r.status == http.StatusNoContent || r.status == http.StatusNotFound {
		klog.Infof("deleted load balancer %s of %s", name, serviceKey(svc))
		return nil
	}
	return cloudError("delete load balancer "+name, r)
}
