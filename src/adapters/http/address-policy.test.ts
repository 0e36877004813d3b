import { describe, expect, it } from 'vitest';
import { isHostAllowed, isRefusedAddress } from './address-policy.js';

describe('isRefusedAddress', () => {
  it.each([
    ['IPv4 loopback', '127.0.0.1'],
    ['IPv4 loopback, end of 127/8', '127.255.255.254'],
    ['IPv6 loopback', '::1'],
    ['IPv6 loopback, written out', '0:0:0:0:0:0:0:1'],
    ['10/8', '10.0.0.1'],
    ['10/8, last address', '10.255.255.255'],
    ['172.16/12, first address', '172.16.0.0'],
    ['172.16/12, last address', '172.31.255.255'],
    ['192.168/16', '192.168.1.1'],
    ['cloud metadata', '169.254.169.254'],
    ['link-local IPv4', '169.254.0.1'],
    ['carrier-grade NAT, first address', '100.64.0.1'],
    ['carrier-grade NAT, last address', '100.127.255.255'],
    ['unspecified IPv4', '0.0.0.0'],
    ['0/8', '0.1.2.3'],
    ['multicast IPv4', '224.0.0.1'],
    ['reserved 240/4', '255.255.255.255'],
    ['documentation IPv4', '192.0.2.10'],
    ['unspecified IPv6', '::'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
    ['IPv4-mapped loopback, hex form', '::ffff:7f00:1'],
    ['IPv4-mapped loopback, written out', '0:0:0:0:0:ffff:7f00:1'],
    ['IPv4-mapped loopback, upper case', '::FFFF:127.0.0.1'],
    ['IPv4-mapped public address (every mapped form is refused)', '::ffff:8.8.8.8'],
    ['IPv4-mapped public address, hex form', '::ffff:808:808'],
    ['IPv4-translated (SIIT)', '::ffff:0:7f00:1'],
    ['IPv4-compatible', '::127.0.0.1'],
    ['unique local fc00::/7, fc half', 'fc00::1'],
    ['unique local fc00::/7, fd half (AWS metadata over IPv6)', 'fd00:ec2::254'],
    ['link-local fe80::/10', 'fe80::1'],
    ['link-local fe80::/10, end of range', 'febf:ffff::1'],
    ['link-local with a zone', 'fe80::1%eth0'],
    ['link-local, upper case', 'FE80::1'],
    ['NAT64 64:ff9b::/96', '64:ff9b::7f00:1'],
    ['NAT64 64:ff9b::/96 of a public address', '64:ff9b::8.8.8.8'],
    ['6to4', '2002:7f00:1::1'],
    ['Teredo', '2001:0:4136:e378::1'],
    ['documentation IPv6', '2001:db8::1'],
    ['multicast IPv6', 'ff02::1'],
  ])('refuses %s (%s)', (_label, address) => {
    expect(isRefusedAddress(address)).toBe(true);
  });

  it.each([
    ['a public IPv4 address', '8.8.8.8'],
    ['another public IPv4 address', '1.1.1.1'],
    ['the address just below 10/8', '9.255.255.255'],
    ['the address just after 10/8', '11.0.0.0'],
    ['the address just below 172.16/12', '172.15.255.255'],
    ['the address just after 172.16/12', '172.32.0.0'],
    ['the address just after 100.64/10', '100.128.0.0'],
    ['the address just after 192.168/16', '192.169.0.0'],
    ['a public IPv6 address', '2606:4700::1111'],
    ['a public IPv6 address, written out', '2606:4700:4700:0:0:0:0:1111'],
    ['a public IPv6 address, upper case', '2001:4860:4860::8888'.toUpperCase()],
  ])('allows %s (%s)', (_label, address) => {
    expect(isRefusedAddress(address)).toBe(false);
  });

  it.each([
    ['an empty string', ''],
    ['a host name', 'localhost'],
    ['a bracketed IPv6 literal', '[::1]'],
    ['a short-hand IPv4 form', '127.1'],
    ['an octal-looking IPv4 form', '010.0.0.1'],
    ['a hex integer', '0x7f000001'],
    ['an out-of-range octet', '256.1.1.1'],
    ['an address with a port', '8.8.8.8:443'],
    ['garbage', 'not an address'],
  ])('refuses what is not an IP address: %s (%j)', (_label, address) => {
    expect(isRefusedAddress(address)).toBe(true);
  });
});

describe('isHostAllowed', () => {
  it.each([
    ['acme.atlassian.net', ['*.atlassian.net'], true],
    ['ACME.Atlassian.NET.', ['*.atlassian.net'], true],
    ['deep.acme.atlassian.net', ['*.atlassian.net'], true],
    ['atlassian.net', ['*.atlassian.net'], false],
    ['evilatlassian.net', ['*.atlassian.net'], false],
    ['atlassian.net.evil.com', ['*.atlassian.net'], false],
    ['wiki.corp.example', ['wiki.corp.example'], true],
    ['other.corp.example', ['wiki.corp.example'], false],
    ['anything.example', [], true],
  ] as const)('%s with %j: %s', (host, allowed, expected) => {
    expect(isHostAllowed(host, allowed)).toBe(expected);
  });
});
