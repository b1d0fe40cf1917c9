// The version ccm_describe reports.
export const VERSION: string = "1.0.0";
