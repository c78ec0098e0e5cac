import { FormatRegistry } from '@sinclair/typebox';

/** RFC 3339 date-time, as the contract's IsoTime uses it. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** TypeBox checks formats only once they are registered; the contract's schemas use date-time. */
export function registerDateTimeFormat(): void {
  if (!FormatRegistry.Has('date-time')) {
    FormatRegistry.Set('date-time', (value) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)));
  }
}
