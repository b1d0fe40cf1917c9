export * from './abi-fixtures.ts';
export * from './built-plugins.ts';
export * from './fault-plugins.ts';
export * from './hostile-plugin.ts';
export * from './hotswap-modules.ts';
export * from './sdk-harness.ts';
export * from './spinner.ts';
export * from './wat.ts';
