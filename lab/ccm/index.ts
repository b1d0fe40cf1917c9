export * from './ccm-env.ts';
export * from './ccm-process.ts';
export * from './devcloud-ccm.ts';
export * from './hotswap-env.ts';
export * from './image.ts';
export * from './invariants.ts';
export * from './plugin-config.ts';
export * from './vsphere-ccm.ts';
