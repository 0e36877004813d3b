import { readdirSync, readFileSync } from 'node:fs';

/**
 * The niceness of each thread of a process (Linux): field 19 of each thread's stat line, the 17th
 * after the command's closing parenthesis (the command may hold spaces and parentheses).
 */
export function threadNicenesses(pid: number | 'self'): number[] {
  return readdirSync(`/proc/${pid}/task`).map((threadId) => {
    const stat = readFileSync(`/proc/${pid}/task/${threadId}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}
