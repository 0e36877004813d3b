/**
 * For statements built from parts: a function that appends a value to `values` and answers its
 * placeholder (`$3`), so that each part names the parameters it needs wherever it stands.
 */
export function parameterIn(values: unknown[]): (value: unknown) => string {
  return (value) => {
    values.push(value);
    return `$${values.length}`;
  };
}
