// The plugin's own version, answered by ccm_describe.
export const VERSION = "0.1.0";
