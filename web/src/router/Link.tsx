import type { AnchorHTMLAttributes, MouseEvent } from 'react';
import { navigate } from './history';

interface LinkProps extends AnchorHTMLAttributes<HTMLAnchorElement> {
  to: string;
}

/**
 * A link to a page of the app: a real <a href> (opens in a new tab with a modifier, copies as a
 * URL), followed without reloading the page on a plain click.
 */
export function Link({ to, onClick, children, ...attributes }: LinkProps) {
  function follow(event: MouseEvent<HTMLAnchorElement>) {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  }
  return (
    <a href={to} onClick={follow} {...attributes}>
      {children}
    </a>
  );
}
