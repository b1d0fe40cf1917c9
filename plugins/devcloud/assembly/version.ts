// The version ccm_describe reports. A build with `--use DEVCLOUD_VERSION_MAJOR=<n>` reports "<n>.0.0" instead of the
// default, so a second module for hot-swap demos differs from the first only in its version (build-variant.ts).
// @ts-ignore: defined only by that compiler flag; isDefined() makes the default build ignore it.
export const VERSION: string = isDefined(DEVCLOUD_VERSION_MAJOR) ? (<i32>DEVCLOUD_VERSION_MAJOR).toString() + ".0.0" : "1.0.0";
