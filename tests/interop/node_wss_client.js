// node-opcua's client over opc.wss (Part 6 §7.5.2) against our server: node-opcua 2.186 takes a
// transportFactory (IClientTransportFactory); this one's transport is its TCP transport with the
// socket replaced by a WebSocket of the `ws` package (subprotocol opcua+uacp, one chunk per binary
// frame: the transport writes one chunk per write). Read, browse and a subscription's data changes,
// over None and over Basic256Sha256/SignAndEncrypt.
//
//   node node_wss_client.js --url opc.wss://127.0.0.1:PORT/ --pki DIR --cert CERT.pem --key KEY.pem --server-cert DER
//
// Exit 0 when every check passed.
"use strict";
const fs = require("fs");
const path = require("path");
const { EventEmitter } = require("events");
const WebSocket = require("ws");
const {
    OPCUAClient, OPCUACertificateManager, MessageSecurityMode, SecurityPolicy, AttributeIds, TimestampsToReturn,
    ClientSubscription, ClientMonitoredItem, StatusCodes
} = require("node-opcua");
const { ClientTCP_transport } = require("node-opcua-transport");

// The socket the TCP transport expects (ISocketLike), over a WebSocket.
class WsSocket extends EventEmitter {
    constructor(url) {
        super();
        this.destroyed = false;
        this.ws = new WebSocket(url, "opcua+uacp", { rejectUnauthorized: false, perMessageDeflate: false });
        this.ws.binaryType = "nodebuffer";
        this.ws.on("open", () => {
            if (this.ws.protocol !== "opcua+uacp") return this.destroy(new Error("the server did not accept opcua+uacp"));
            this.remoteAddress = this.ws._socket && this.ws._socket.remoteAddress;
            this.remotePort = this.ws._socket && this.ws._socket.remotePort;
            this.emit("connect");
        });
        this.ws.on("message", (data, isBinary) => {
            if (!isBinary) return this.destroy(new Error("a text frame"));
            this.emit("data", Buffer.from(data));
        });
        this.ws.on("error", (err) => this.emit("error", err));
        this.ws.on("close", () => {
            this.destroyed = true;
            this.emit("end");
            this.emit("close", false);
        });
    }
    write(data, callback) { this.ws.send(data, { binary: true }, (err) => callback && callback(err || undefined)); }
    end() { this.ws.close(1000); }
    destroy() {
        if (this.destroyed) return;
        this.destroyed = true;
        this.ws.terminate();
    }
    setKeepAlive() { return this; }
    setNoDelay() { return this; }
    setTimeout() { return this; }
}

class ClientWSS_transport extends ClientTCP_transport {
    connect(endpointUrl, callback) {
        this.endpointUrl = endpointUrl;
        this.serverUri = "urn:uactor:node-wss-client";
        const socket = new WsSocket(endpointUrl.replace(/^opc\.wss:/, "wss:"));
        try {
            this._install_socket(socket);
        } catch (err) {
            socket.destroy();
            return callback(err);
        }
        const onError = (err) => callback(err);
        socket.once("error", onError);
        socket.once("connect", () => {
            socket.removeListener("error", onError);
            this._perform_HEL_ACK_transaction((err) => {
                if (!err) {
                    this._install_post_connect_error_handler(endpointUrl);
                    this.emit("connect");
                }
                callback(err);
            });
        });
    }
}
const transportFactory = { create: (settings) => new ClientWSS_transport(settings) };

function parseArgs(argv) {
    const o = {};
    for (let i = 0; i < argv.length; i += 2) o[argv[i].replace(/^--/, "")] = argv[i + 1];
    return o;
}

let failures = 0;
function check(what, ok, detail) {
    console.log(`${ok ? "ok  " : "FAIL"} ${what}${detail ? " (" + detail + ")" : ""}`);
    if (!ok) failures++;
}

async function run(o, cm, secure) {
    const mode = secure ? "SignAndEncrypt" : "None";
    const client = OPCUAClient.create({
        applicationName: "uactor wss interop", applicationUri: "urn:uactor:node-secure-client", endpointMustExist: false,
        securityMode: secure ? MessageSecurityMode.SignAndEncrypt : MessageSecurityMode.None,
        securityPolicy: secure ? SecurityPolicy.Basic256Sha256 : SecurityPolicy.None,
        connectionStrategy: { maxRetry: 0, initialDelay: 100, maxDelay: 200 },
        keepSessionAlive: false, clientCertificateManager: cm, transportFactory,
        certificateFile: path.resolve(o.cert), privateKeyFile: path.resolve(o.key),
        // node-opcua fetches a secured endpoint's certificate with a client of its own that ignores
        // transportFactory (opc.tcp only): given here, there is nothing to fetch.
        serverCertificate: secure ? fs.readFileSync(o["server-cert"]) : undefined
    });
    await client.connect(o.url);
    const session = await client.createSession();
    try {
        const rd = await session.read({ nodeId: "ns=1;s=Demo.Static.Scalar.Double", attributeId: AttributeIds.Value });
        check(`${mode}: Read Demo.Static.Scalar.Double`, rd.statusCode === StatusCodes.Good, rd.statusCode.name);
        const br = await session.browse({ nodeId: "i=85", browseDirection: 0, includeSubtypes: true, resultMask: 63 });
        const names = br.references.map((r) => r.browseName.name);
        check(`${mode}: Browse Objects lists Server`, names.includes("Server"), names.join(","));
        const sub = ClientSubscription.create(session, {
            requestedPublishingInterval: 50, requestedLifetimeCount: 100, requestedMaxKeepAliveCount: 10,
            maxNotificationsPerPublish: 100, publishingEnabled: true, priority: 1
        });
        const item = ClientMonitoredItem.create(sub, { nodeId: "ns=1;s=Demo.Dynamic.Counter", attributeId: AttributeIds.Value },
                                                { samplingInterval: 50, discardOldest: true, queueSize: 10 },
                                                TimestampsToReturn.Both);
        let changes = 0;
        item.on("changed", () => { changes++; });
        const until = Date.now() + 10000;
        while (changes < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
        check(`${mode}: a subscription's data changes arrive`, changes >= 3, `${changes} changes`);
        await sub.terminate();
        const eps = await client.getEndpoints();
        check(`${mode}: GetEndpoints names opc.wss endpoints`,
              eps.some((e) => e.endpointUrl.startsWith("opc.wss://") &&
                              e.transportProfileUri === "http://opcfoundation.org/UA-Profile/Transport/wss-uasc-uabinary"));
    } finally {
        await session.close();
        await client.disconnect();
    }
}

async function main() {
    const o = parseArgs(process.argv.slice(2));
    const cm = new OPCUACertificateManager({ rootFolder: o.pki, automaticallyAcceptUnknownCertificate: false });
    await cm.initialize();
    for (const secure of [false, true]) {
        try {
            await run(o, cm, secure);
        } catch (err) {
            check(`${secure ? "SignAndEncrypt" : "None"}: connect, session and services`, false, err.message);
        }
    }
    await cm.dispose();
    process.exit(failures === 0 ? 0 : 1);
}
main();
