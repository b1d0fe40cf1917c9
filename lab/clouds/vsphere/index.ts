// vSphere on this machine for the end-to-end tests: vcsim (govmomi's vCenter simulator) with its credentials checked
// and a test CA's certificate, seeded through govc; the upstream vSphere CCM's binary for running beside wasm-ccm.
//
//   const vc = await startVcsim();
//   await addDatacenter(vc, 'dc-1');
//   await addHost(vc, { datacenter: 'dc-1', name: 'esx-1.example' });
//   await createVm(vc, { name: 'node-1', datacenter: 'dc-1', host: 'esx-1.example', uuid, ipAddress: '10.0.0.5' });
//   await vc.stop();
export * from './inventory.ts';
export type { TestCa } from './tls.ts';
export { startVcsim, Vcsim, type VcsimOptions, vsphereBinary } from './vcsim.ts';
