// The Kubernetes objects the controllers read, as the apiserver sends them in JSON (kube/client/wire.ts): what the
// shared informers cache and what node and service updates write back.
import type { V1Node, V1Service } from '@kubernetes/client-node';
import type { Wire } from '../../kube/client/wire.ts';

export type WireNode = Wire<V1Node>;
export type WireService = Wire<V1Service>;
