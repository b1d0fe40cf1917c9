// The version ccm_describe reports. A build with `--use OPENSTACK_VERSION_MAJOR=<n>` reports "<n>.0.0" instead, so a
// second module for hot-swap tests differs from the first only in its version (lab/plugins openStackVariant).
// isDefined() is resolved at compile time: the default build never looks at the undefined name.
// @ts-ignore: OPENSTACK_VERSION_MAJOR exists only under that compiler flag.
const MAJOR: i32 = isDefined(OPENSTACK_VERSION_MAJOR) ? <i32>OPENSTACK_VERSION_MAJOR : 1;

export const VERSION: string = MAJOR.toString() + ".0.0";
