// The controller manager's own metric (component-base metrics/prometheus/controllers), with upstream's name, labels
// and help text.
import { Gauge, type Registry } from 'prom-client';
import { beta } from '../metrics/stability.ts';

export function runningManagedControllers(registry: Registry): Gauge<'name' | 'manager'> {
  return new Gauge({
    name: 'running_managed_controllers',
    help: beta('Indicates where instances of a controller are currently running'),
    labelNames: ['name', 'manager'] as const,
    registers: [registry],
  });
}
