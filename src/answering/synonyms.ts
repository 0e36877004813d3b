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

/**
 * Words technical documentation writes one way and people ask another: abbreviations
 * (`stdout`, `env`, `opts`, `msg`) and the usual equivalents of software writing (a payload is a
 * body, a socket a connection). General to software documentation, not to any package's.
 */
export const TECHNICAL_SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['stdout', 'standard output'],
  ['stderr', 'standard error'],
  ['stdin', 'standard input'],
  ['env', 'environment'],
  ['config', 'configuration', 'configure', 'setting', 'settings'],
  ['arg', 'args', 'argument', 'arguments', 'param', 'params', 'parameter', 'parameters'],
  ['opts', 'option', 'options'],
  ['auth', 'authentication', 'authenticate', 'credentials'],
  ['dir', 'directory', 'folder'],
  ['repo', 'repository'],
  ['msg', 'message'],
  ['err', 'error'],
  ['fn', 'func', 'function'],
  ['cb', 'callback'],
  ['db', 'database'],
  ['ms', 'millisecond', 'milliseconds'],
  ['max', 'maximum', 'largest', 'most', 'limit', 'cap'],
  ['min', 'minimum', 'smallest', 'least'],
  ['default', 'defaults'],
  ['async', 'asynchronous', 'nonblocking', 'non-blocking'],
  ['sync', 'synchronous', 'blocking'],
  ['attr', 'attribute'],
  ['val', 'value'],
  ['var', 'variable'],
  ['num', 'number'],
  ['str', 'string'],
  ['obj', 'object'],
  ['req', 'request'],
  ['res', 'response', 'reply'],
  ['body', 'payload'],
  ['socket', 'connection'],
  ['kill', 'exit', 'terminate', 'quit'],
  ['required', 'mandatory', 'compulsory', 'must'],
  ['change', 'modify', 'alter', 'rewrite', 'replace', 'swap', 'override'],
  ['detect', 'notice', 'discover'],
  ['dead', 'died', 'broken'],
  ['risk', 'caveat', 'drawback', 'downside', 'pitfall', 'limitation'],
  ['enable', 'activate'],
  ['disable', 'deactivate'],
  ['delete', 'remove', 'erase', 'purge'],
  ['fetch', 'retrieve', 'download'],
  ['send', 'transmit', 'emit'],
  ['timeout', 'deadline', 'expiry'],
  ['log', 'logger'],
  ['dependency', 'dependencies', 'deps'],
  ['dev', 'development'],
  ['prod', 'production'],
  ['lib', 'library'],
  ['pkg', 'package'],
  ['impl', 'implementation'],
  ['info', 'information'],
  ['doc', 'docs', 'documentation'],
  ['app', 'application'],
  ['url', 'uri', 'link'],
  ['mock', 'stub', 'fake'],
  ['retry', 'attempt', 'reattempt'],
  ['fail', 'throw', 'reject'],
  ['install', 'installation'],
  ['upgrade', 'update', 'migrate'],
  ['permission', 'permissions', 'access'],
  ['dependency', 'requirement'],
];

/** Every word of the groups, in order, for one analysis call. */
export const SYNONYM_WORDS: readonly string[] = [...SYNONYM_GROUPS, ...TECHNICAL_SYNONYM_GROUPS].flat();

/**
 * Term → the other terms of its groups, from the groups' words as the analyser stems them
 * (`analysed[i]` is `SYNONYM_WORDS[i]`'s terms). The technical groups only for `technical` text
 * (documentation): elsewhere "ms" or "link" mean other things.
 */
export function synonymsFrom(
  analysed: readonly (ReadonlyMap<string, number> | undefined)[],
  technical: boolean,
): ReadonlyMap<string, ReadonlySet<string>> {
  const synonyms = new Map<string, Set<string>>();
  let index = 0;
  for (const [at, group] of [...SYNONYM_GROUPS, ...TECHNICAL_SYNONYM_GROUPS].entries()) {
    const terms = new Set<string>();
    for (let word = 0; word < group.length; word += 1) {
      for (const term of analysed[index + word]?.keys() ?? []) terms.add(term);
    }
    index += group.length;
    if (!technical && at >= SYNONYM_GROUPS.length) continue;
    for (const term of terms) {
      const others = synonyms.get(term) ?? new Set<string>();
      for (const other of terms) if (other !== term) others.add(other);
      synonyms.set(term, others);
    }
  }
  return synonyms;
}
