/** The one host:port parser, read the same way by `listen`, LISTEN_ADDRESS, the HTTP server, the Host check and the health check. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { embeddedIpv4, hostPortProblem, isIpLiteral, isLoopbackHost, parseHost, parseHostPort } from '../src/host-port.js';
import { hostRule } from '../src/server/request-origin.js';

test('host:port: names, IPv4 and bracketed IPv6; no port, a port above 65535 or a stray character are refused', () => {
  assert.deepEqual(parseHostPort('0.0.0.0:9090'), { host: '0.0.0.0', port: 9090 });
  assert.deepEqual(parseHostPort('[::1]:80'), { host: '::1', port: 80 });
  assert.deepEqual(parseHostPort('Sync.Example.COM:443'), { host: 'sync.example.com', port: 443 });
  for (const bad of ['9090', ':9090', 'host', 'host:', 'host:99999', '::1:80', 'a b:80', 'host:80/path']) assert.equal(parseHostPort(bad), null, bad);
  assert.equal(hostPortProblem('host:70000'), 'port');
  assert.equal(hostPortProblem('everywhere'), 'form');
  assert.equal(hostPortProblem('[::]:9090'), null);
  assert.deepEqual(parseHost('example.com'), { host: 'example.com', port: null });
  assert.ok(isLoopbackHost('127.3.2.1') && isLoopbackHost('::1') && isLoopbackHost('app.localhost') && !isLoopbackHost('localhost.evil.example'));
  assert.ok(isIpLiteral('10.0.0.1') && isIpLiteral('fe80::1') && !isIpLiteral('10.0.0.1.nip.io'));
});

test('loopback, one definition: 127.0.0.0/8 and ::1 in every IPv6 form that carries an IPv4 address', () => {
  for (const host of ['::ffff:127.0.0.1', '::ffff:7f00:1', '::127.0.0.1', '64:ff9b::127.0.0.1', '2002:7f00:1::', '[::1]', '0:0:0:0:0:0:0:1', 'LOCALHOST']) assert.ok(isLoopbackHost(host), host);
  for (const host of ['::', '::ffff:10.0.0.1', '2001:db8::1', 'fe80::1', '1::2::3', ':::1', '128.0.0.1']) assert.ok(!isLoopbackHost(host), host);
  assert.equal(embeddedIpv4('64:ff9b::a9fe:a9fe'), '169.254.169.254');
  assert.equal(embeddedIpv4('::169.254.169.254'), '169.254.169.254');
  assert.equal(embeddedIpv4('2002:a9fe:a9fe:1::'), '169.254.169.254');
  assert.equal(embeddedIpv4('::ffff:1.2.3.4'), '1.2.3.4');
  assert.equal(embeddedIpv4('::1'), null);
  assert.equal(embeddedIpv4('2001:db8::a9fe:a9fe'), null);
  assert.equal(embeddedIpv4('::ffff:1.2.3.456'), null);
});

test('the Host rule: IPs, localhost, the listen host and allowed-hosts; a name that only ends like an allowed one is refused', () => {
  const allows = hostRule('sync-host:9090', ['ops.example.com', '*.svc.cluster.local']);
  for (const host of ['10.0.0.7:9090', '[fd00::7]:9090', 'localhost:9090', 'sync-host:9090', 'OPS.example.com', 'a.b.svc.cluster.local:80', undefined]) assert.equal(allows(host), true, String(host));
  for (const host of ['evil.example:9090', 'ops.example.com.evil.example', 'svc.cluster.local', 'evilsvc.cluster.local', '10.0.0.7.nip.io', '', 'a b']) assert.equal(allows(host), false, host);
  assert.equal(hostRule('0.0.0.0:9090', [])('0.0.0.0:9090'), true, 'an IP, though a wildcard one');
});
