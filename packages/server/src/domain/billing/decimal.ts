/**
 * Exact non-negative decimals for money: a bigint holding the value × 10^12 (the 12 fraction
 * digits a DecimalString may have), so quantities × fractional unit prices never touch floats.
 */
const FRACTION_DIGITS = 12;
const ONE = 10n ** BigInt(FRACTION_DIGITS);
const DECIMAL = /^(\d+)(?:\.(\d{1,12}))?$/;

export type Scaled = bigint;

/** "0.2" → 0.2 × 10^12. Throws on anything but a plain non-negative decimal (schemas check first). */
export function parseDecimal(text: string): Scaled {
  const match = DECIMAL.exec(text);
  if (!match) throw new RangeError(`not a decimal: ${text}`);
  const fraction = (match[2] ?? '').padEnd(FRACTION_DIGITS, '0');
  return BigInt(match[1]!) * ONE + BigInt(fraction);
}

/** The shortest exact decimal text: 200000000000n → "0.2", 3n × 10^12 → "3". */
export function formatDecimal(value: Scaled): string {
  const whole = value / ONE;
  const fraction = (value % ONE).toString().padStart(FRACTION_DIGITS, '0').replace(/0+$/, '');
  return fraction === '' ? whole.toString() : `${whole.toString()}.${fraction}`;
}

/** The rounding rule of every invoice line: half-up (away from zero) to a whole unit. */
export function roundHalfUp(value: Scaled): bigint {
  return (value + ONE / 2n) / ONE;
}

/** An integer count times an exact decimal, exactly. */
export function multiply(quantity: number, price: Scaled): Scaled {
  return BigInt(quantity) * price;
}

/**
 * Moves the decimal point `digits` places left, for display in major units:
 * ("1234", 2) → "12.34", ("0.2", 2) → "0.002". Exact, text only.
 */
export function shiftLeft(decimal: string, digits: number): string {
  const [whole = '0', fraction = ''] = decimal.split('.');
  const padded = whole.padStart(digits + 1, '0');
  const head = padded.slice(0, padded.length - digits);
  const tail = (padded.slice(padded.length - digits) + fraction).replace(/0+$/, '');
  const minimum = tail.padEnd(digits, '0');
  return minimum === '' ? head : `${head}.${minimum}`;
}
