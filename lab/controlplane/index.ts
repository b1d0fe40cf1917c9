export * from './binaries.ts';
export * from './controlplane.ts';
export * from './https-probe.ts';
export * from './identity.ts';
export * from './kube.ts';
export * from './kwok.ts';
export * from './manifests.ts';
export * from './plugin-configmap.ts';
