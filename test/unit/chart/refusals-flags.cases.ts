// The command-line values of refusals.test.ts (see refusals.cases.ts): flags the chart sets from values, and extraArgs
// against the CCM's flags (files/flags.json).
import type { BadCase, ValuesCase } from './refusals.cases.ts';

export const flagBadCases: BadCase[] = [
  {
    what: 'an IPv4 prefix over 32',
    values: { clusterCIDR: '10.244.0.0/33' },
    message: 'clusterCIDR: "10.244.0.0/33" has the prefix length "33" (IPv4: 0 to 32)',
  },
  {
    what: 'an octet over 255',
    values: { clusterCIDR: '10.300.0.0/16' },
    message: 'clusterCIDR: "10.300.0.0/16" has "10.300.0.0", which is not an IP address',
  },
  {
    what: 'an IPv6 prefix over 128',
    values: { clusterCIDR: 'fd00::/129' },
    message: 'clusterCIDR: "fd00::/129" has the prefix length "129" (IPv6: 0 to 128)',
  },
  {
    what: 'an IPv6 CIDR with two ::',
    values: { clusterCIDR: 'fd00::1::/64' },
    message: 'clusterCIDR: "fd00::1::/64" has "fd00::1::", which is not an IP address',
  },
  {
    what: 'a CIDR without a prefix',
    values: { clusterCIDR: '10.244.0.0' },
    message: 'clusterCIDR: "10.244.0.0" is not address/prefix',
  },
  {
    what: 'two IPv4 CIDRs',
    values: { clusterCIDR: '10.244.0.0/16,10.245.0.0/16' },
    message: 'clusterCIDR: "10.244.0.0/16,10.245.0.0/16" gives two IPv4 CIDRs',
  },
  {
    what: 'three CIDRs',
    values: { clusterCIDR: '10.0.0.0/16,fd00::/48,10.1.0.0/16' },
    message: 'clusterCIDR: "10.0.0.0/16,fd00::/48,10.1.0.0/16" lists 3 CIDRs',
  },
  {
    what: 'a host name as bindAddress',
    values: { bindAddress: 'localhost' },
    message: 'bindAddress: "localhost" is not an IP address',
  },
  {
    what: 'burst below qps',
    values: { kubeAPIQPS: 50, kubeAPIBurst: 30 },
    message: 'kubeAPIBurst: 30 is below kubeAPIQPS (50)',
  },
  {
    what: 'leaseDuration not above renewDeadline',
    values: { 'leaderElection.leaseDuration': '10s' },
    message: 'leaderElection.leaseDuration: 10s is not longer than leaderElection.renewDeadline (10s)',
  },
  {
    what: 'renewDeadline not above 1.2 x retryPeriod',
    values: { 'leaderElection.retryPeriod': '9s' },
    message: 'leaderElection.renewDeadline: 10s is not longer than 1.2 x leaderElection.retryPeriod (9s)',
  },
  {
    what: 'a zero retryPeriod',
    values: { 'leaderElection.retryPeriod': '0s' },
    message: 'leaderElection.retryPeriod: "0s" is not a positive duration',
  },
  {
    what: 'a callTimeout over 10m',
    values: { 'pluginLimits.callTimeout': '11m' },
    message: 'pluginLimits.callTimeout: "11m" is out of range',
  },
  {
    what: 'an unknown controller',
    values: { controllers: ['*', '-nodes'] },
    message: "at '/controllers/1': '-nodes' does not match pattern",
  },
  {
    what: 'a Lease name that is not an object name',
    values: { 'leaderElection.resourceName': 'CCM_Lease' },
    message: "at '/leaderElection/resourceName'",
  },
  {
    what: 'a Lease namespace that is not a namespace',
    values: { 'leaderElection.resourceNamespace': 'Kube-System' },
    message: "at '/leaderElection/resourceNamespace'",
  },
  {
    what: 'a TLS Secret name that is not one',
    values: { 'tls.existingSecret': 'ccm tls' },
    message: "at '/tls/existingSecret'",
  },
  {
    what: 'an unknown flag in extraArgs',
    values: { extraArgs: { 'node-monitor-periods': '5s' } },
    message: 'extraArgs.node-monitor-periods: --node-monitor-periods is not a flag of wasm-ccm',
  },
  {
    what: 'a flag written with its dashes',
    values: { extraArgs: { '--profiling': false } },
    message: "extraArgs.--profiling: write the flag's name without the leading dashes (profiling: ...)",
  },
  {
    what: 'a boolean flag given a word',
    values: { extraArgs: { profiling: 'maybe' } },
    message: 'extraArgs.profiling: "maybe" is not a boolean',
  },
  {
    what: 'an integer flag given a word',
    values: { extraArgs: { 'concurrent-node-status-updates': 'many' } },
    message: 'extraArgs.concurrent-node-status-updates: "many" is not an integer',
  },
  {
    what: 'a duration flag given a bare number',
    values: { extraArgs: { 'node-monitor-period': 5 } },
    message: 'extraArgs.node-monitor-period: "5" is not a duration',
  },
  {
    what: 'a Prometheus interval with a fraction',
    values: { 'serviceMonitor.interval': '1.5s' },
    message: "at '/serviceMonitor/interval': '1.5s' does not match pattern",
  },
  {
    what: 'a maxUnavailable that is no number or percentage',
    values: { 'podDisruptionBudget.maxUnavailable': 'half' },
    message: "at '/podDisruptionBudget/maxUnavailable'",
  },
  {
    what: 'a metrics reader ServiceAccount without namespace',
    values: { metricsReaders: [{ kind: 'ServiceAccount', name: 'prometheus' }] },
    message: "at '/metricsReaders/0': missing property 'namespace'",
  },
  {
    what: 'a log format of another case',
    values: { extraArgs: { 'logging-format': 'JSON' } },
    message: 'extraArgs.logging-format: "JSON" is not one of its values: write one of text, json',
  },
  {
    what: 'an unknown feature gate',
    values: { extraArgs: { 'feature-gates': 'LoggingAlphaOption=true' } },
    message: 'extraArgs.feature-gates: "LoggingAlphaOption=true" is not Gate=true|false with a gate of wasm-ccm',
  },
  {
    what: 'a split log stream without its alpha gate',
    values: { extraArgs: { 'log-json-split-stream': true } },
    message: 'extraArgs.log-json-split-stream: an alpha option: add feature-gates: LoggingAlphaOptions=true',
  },
  {
    what: 'delegated-auth off on a remote address',
    values: { extraArgs: { 'delegated-auth': false } },
    message: 'extraArgs.delegated-auth: false serves /metrics without authentication',
  },
  {
    what: 'a Lease lock other than leases',
    values: { extraArgs: { 'leader-elect-resource-lock': 'configmaps' } },
    message: 'extraArgs.leader-elect-resource-lock: "configmaps": only leases is supported',
  },
];

export const flagGoodCases: ValuesCase[] = [
  {
    what: 'dual-stack CIDRs and an IPv6 bindAddress',
    values: { clusterCIDR: '10.244.0.0/16, fd00:10:244::/56', bindAddress: '::' },
  },
  { what: 'an IPv6 CIDR with an IPv4 tail', values: { clusterCIDR: '::ffff:10.244.0.0/120' } },
  {
    what: 'burst equal to qps, lease timings at their edges',
    values: {
      kubeAPIQPS: 30,
      kubeAPIBurst: 30,
      'leaderElection.leaseDuration': '1m',
      'leaderElection.renewDeadline': '.7s',
      'leaderElection.retryPeriod': '500ms',
    },
  },
  {
    what: 'flags of each type in extraArgs',
    values: {
      extraArgs: {
        'node-monitor-period': '1m30s',
        profiling: false,
        'concurrent-node-status-updates': 3,
        'log-flush-frequency': '0',
        'logging-format': 'json',
      },
    },
  },
  {
    what: 'the route controller off by its upstream alias, without clusterCIDR',
    values: { controllers: ['*', '-node-route-controller'], clusterCIDR: '' },
  },
  {
    what: 'a percentage PDB and a compound scrape interval',
    values: {
      kind: 'Deployment',
      'podDisruptionBudget.maxUnavailable': '50%',
      'serviceMonitor.enabled': true,
      'serviceMonitor.interval': '1m30s',
    },
  },
  {
    what: 'a split log stream with alpha gates on, delegated-auth off on loopback',
    values: {
      bindAddress: '127.0.0.1',
      extraArgs: { 'log-text-split-stream': true, 'feature-gates': 'AllAlpha=true', 'delegated-auth': false },
    },
  },
];
