/**
 * The first steps of a PostgreSQL and a MariaDB server that speak TLS with a given certificate,
 * played at wire level (the shared test servers run without TLS and must not be reconfigured):
 * the TLS request, a real TLS handshake, then a refused login. `logins` counts the logins that
 * arrived over TLS, i.e. the times a client trusted the certificate and sent its credentials.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { TLSSocket } from 'node:tls';

/** A listening fake server. */
export interface TlsServer {
  readonly port: number;
  logins(): number;
  close(): Promise<void>;
}

const PG_SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);

function packet(seq: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUIntLE(payload.length, 0, 3);
  head.writeUInt8(seq, 3);
  return Buffer.concat([head, payload]);
}

/** MySQL HandshakeV10 offering TLS (CLIENT_SSL) and mysql_native_password. */
function mysqlGreeting(): Buffer {
  const caps = 0x1 | 0x8 | 0x200 | 0x800 | 0x8000 | 0x80000;
  const fixed = Buffer.alloc(4 + 8 + 1 + 2 + 1 + 2 + 2 + 1 + 10);
  let o = 0;
  fixed.writeUInt32LE(1, o); o += 4;
  Buffer.from('abcdefgh').copy(fixed, o); o += 8;
  fixed.writeUInt8(0, o); o += 1;
  fixed.writeUInt16LE(caps & 0xffff, o); o += 2;
  fixed.writeUInt8(45, o); o += 1;
  fixed.writeUInt16LE(2, o); o += 2;
  fixed.writeUInt16LE(caps >>> 16, o); o += 2;
  fixed.writeUInt8(21, o);
  return packet(0, Buffer.concat([Buffer.from([0x0a]), Buffer.from('10.11.0-fake\0'), fixed, Buffer.from('ijklmnopqrst\0'), Buffer.from('mysql_native_password\0')]));
}

function listen(onSocket: (socket: Socket, login: () => void) => void): Promise<TlsServer> {
  let logins = 0;
  const server: Server = createServer((socket) => {
    socket.on('error', () => socket.destroy());
    onSocket(socket, () => logins++);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        logins: () => logins,
        close: () => new Promise<void>((done) => server.close(() => done())),
      }),
    ),
  );
}

function upgrade(socket: Socket, key: Buffer, cert: Buffer, onLogin: (tls: TLSSocket) => void): void {
  const tls = new TLSSocket(socket, { isServer: true, key, cert });
  tls.on('error', () => tls.destroy());
  tls.once('data', () => onLogin(tls));
}

/** A PostgreSQL server: accepts the SSLRequest, then refuses every login (SQLSTATE 28P01). */
export function fakeTlsPostgres(key: Buffer, cert: Buffer): Promise<TlsServer> {
  return listen((socket, login) => {
    socket.once('data', (first: Buffer) => {
      if (!first.subarray(0, 8).equals(PG_SSL_REQUEST)) return void socket.destroy();
      socket.write('S');
      upgrade(socket, key, cert, (tls) => {
        login();
        const fields = Buffer.from('SFATAL\0VFATAL\0C28P01\0Mpassword authentication failed for user "shopsync"\0\0');
        const head = Buffer.alloc(5);
        head.write('E', 0);
        head.writeInt32BE(fields.length + 4, 1);
        tls.end(Buffer.concat([head, fields]));
      });
    });
  });
}

/** A MariaDB server: greets offering TLS, takes the SSLRequest, then refuses every login (1045, 28000). */
export function fakeTlsMysql(key: Buffer, cert: Buffer): Promise<TlsServer> {
  return listen((socket, login) => {
    socket.write(mysqlGreeting());
    socket.once('data', (first: Buffer) => {
      // The client starts TLS right after its 36-byte SSLRequest, without waiting for an answer.
      socket.pause();
      if (first.length > 36) socket.unshift(first.subarray(36));
      upgrade(socket, key, cert, (tls) => {
        login();
        const body = Buffer.concat([Buffer.from([0xff, 0x15, 0x04]), Buffer.from("#28000Access denied for user 'shopsync'")]);
        tls.end(packet(3, body));
      });
    });
  });
}
