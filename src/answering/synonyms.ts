/**
 * Everyday words that say the same thing, so a question's word finds a sentence that words it
 * otherwise ("What is X called?" / "X is known as…"). General English, not any collection's
 * vocabulary; the answerer stems them as it stems the question.
 */
export const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['name', 'called', 'named', 'known', 'termed', 'referred'],
  ['famous', 'renowned', 'notable', 'celebrated', 'best-known'],
  ['begin', 'began', 'start', 'started', 'founded', 'established', 'created', 'formed'],
  ['end', 'ended', 'finished', 'ceased', 'stopped'],
  ['die', 'died', 'death'],
  ['born', 'birth'],
  ['large', 'largest', 'big', 'biggest', 'major'],
  ['small', 'smallest', 'little', 'minor'],
  ['buy', 'bought', 'purchase', 'purchased', 'acquired'],
  ['build', 'built', 'constructed', 'erected'],
  ['make', 'made', 'create', 'produce', 'produced'],
  ['use', 'used', 'employ', 'utilise', 'utilize'],
  ['increase', 'grow', 'grew', 'rise', 'rose'],
  ['decrease', 'decline', 'fall', 'fell', 'drop', 'dropped'],
  ['show', 'demonstrate', 'reveal'],
  ['cause', 'caused', 'triggered', 'led'],
  ['control', 'rule', 'ruled', 'govern', 'dominance'],
  ['lead', 'led', 'head', 'headed'],
  ['win', 'won', 'defeat', 'defeated', 'beat'],
  ['kill', 'killed', 'slew'],
  ['live', 'lived', 'reside', 'inhabit', 'inhabited'],
  ['locate', 'located', 'situated', 'lies'],
  ['require', 'need', 'needed'],
  ['similar', 'alike', 'same'],
  ['main', 'primary', 'principal', 'chief'],
  ['example', 'instance'],
  ['type', 'kind', 'sort'],
  ['often', 'usually', 'commonly', 'typically', 'generally'],
];

/** Every word of the groups, in order, for one analysis call. */
export const SYNONYM_WORDS: readonly string[] = SYNONYM_GROUPS.flat();

/**
 * Term → the other terms of its groups, from the groups' words as the analyser stems them
 * (`analysed[i]` is `SYNONYM_WORDS[i]`'s terms).
 */
export function synonymsFrom(
  analysed: readonly (ReadonlyMap<string, number> | undefined)[],
): ReadonlyMap<string, ReadonlySet<string>> {
  const synonyms = new Map<string, Set<string>>();
  let index = 0;
  for (const group of SYNONYM_GROUPS) {
    const terms = new Set<string>();
    for (let word = 0; word < group.length; word += 1) {
      for (const term of analysed[index + word]?.keys() ?? []) terms.add(term);
    }
    index += group.length;
    for (const term of terms) {
      const others = synonyms.get(term) ?? new Set<string>();
      for (const other of terms) if (other !== term) others.add(other);
      synonyms.set(term, others);
    }
  }
  return synonyms;
}
