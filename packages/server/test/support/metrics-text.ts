/** The value of one sample line of Prometheus text, e.g. `presence_decisions_total{decision="PRESENCE_VERIFIED"}`. */
export function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
