// Well-known keys of k8s.io/api/core/v1 and k8s.io/cloud-provider/api that the node controllers read and write.
export const TAINT_EXTERNAL_CLOUD_PROVIDER = 'node.cloudprovider.kubernetes.io/uninitialized';
export const TAINT_NODE_SHUTDOWN = 'node.cloudprovider.kubernetes.io/shutdown';
export const ANNOTATION_PROVIDED_NODE_IP = 'alpha.kubernetes.io/provided-node-ip';

export const LABEL_INSTANCE_TYPE_STABLE = 'node.kubernetes.io/instance-type';
export const LABEL_INSTANCE_TYPE_BETA = 'beta.kubernetes.io/instance-type';
export const LABEL_TOPOLOGY_ZONE = 'topology.kubernetes.io/zone';
export const LABEL_TOPOLOGY_REGION = 'topology.kubernetes.io/region';
export const LABEL_FAILURE_DOMAIN_BETA_ZONE = 'failure-domain.beta.kubernetes.io/zone';
export const LABEL_FAILURE_DOMAIN_BETA_REGION = 'failure-domain.beta.kubernetes.io/region';
