// The version ccm_describe reports. A build with `--use DEVCLOUD_VERSION_MAJOR=<n>` reports "<n>.0.0" instead of the
// default, so a second module for hot-swap demos differs from the first only in its version (build-variant.ts).
// isDefined() is resolved at compile time: the default build never looks at the undefined name.
// @ts-ignore: DEVCLOUD_VERSION_MAJOR exists only under that compiler flag.
const MAJOR: i32 = isDefined(DEVCLOUD_VERSION_MAJOR) ? <i32>DEVCLOUD_VERSION_MAJOR : 1;

export const VERSION: string = MAJOR.toString() + ".0.0";
