export * from './eventually.ts';
export * from './insecure-https.ts';
export * from './ports.ts';
export * from './process.ts';
export * from './reaper.ts';
export * from './json-log.ts';
