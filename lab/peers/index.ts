export * from './aws-env.ts';
export * from './aws-peer-ccm.ts';
export * from './aws-seed.ts';
export * from './moto.ts';
export * from './occm.ts';
export * from './peer-ccm.ts';
export * from './vsphere-ccm.ts';
