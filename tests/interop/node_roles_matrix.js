#!/usr/bin/env node
// The roles matrix of examples/config/roles.toml (docs/security.md "Roles and permissions"), with
// node-opcua's client: logged in as anonymous (the None endpoint), viewer, operator, engineer and
// admin (the SignAndEncrypt endpoint), each Browse, TranslateBrowsePaths, Read, Write, Call and
// CreateMonitoredItems on a node the role may and one it may not touch; every answer must be
// exactly what the role allows (Good, BadUserAccessDenied, absent from a Browse).
//
//   node node_roles_matrix.js --floor URL --eng URL --pki DIR --cert CERT --key KEY [--after-reload yes]
//
// --after-reload: the server reloaded roles.toml with Observer given Write and Call on Line1 and
// Browse and Read in namespace 2's default (roles_interop.sh): only the viewer runs, its Write of
// the setpoint and its Call are Good, and namespace 2's DefaultUserRolePermissions shows Observer.
//
// Prints `ok ROLE CHECK` or `FAIL ROLE CHECK: why` per check and `matrix: N of M checks passed`;
// exit 0 only when all passed. No wrong password is sent (the login guard would back the user off).
"use strict";

const util = require("util");
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;

const path = require("path");
const {
    OPCUAClient, OPCUACertificateManager, MessageSecurityMode, SecurityPolicy, UserTokenType, AttributeIds,
    DataType, StatusCodes, TimestampsToReturn, MonitoringMode, makeBrowsePath, NodeClass
} = require("node-opcua");

function parseArgs(argv) {
    const o = {};
    for (let i = 0; i < argv.length; i += 2) o[argv[i].replace(/^--/, "")] = argv[i + 1];
    for (const k of ["floor", "eng", "pki", "cert", "key"]) {
        if (!o[k]) { process.stdout.write("usage: --floor URL --eng URL --pki DIR --cert CERT --key KEY\n"); process.exit(2); }
    }
    return o;
}

const N = {
    plant: "ns=2;s=Plant",
    line1: "ns=2;s=Plant.Line1",
    temperature: "ns=2;s=Plant.Line1.Temperature",
    setpoint: "ns=2;s=Plant.Line1.Setpoint",
    setSetpoint: "ns=2;s=Plant.Line1.SetSetpoint",
    maxRate: "ns=2;s=Plant.Config.MaxRate",
    maintenance: "ns=2;s=Plant.Maintenance",
    notes: "ns=2;s=Plant.Maintenance.Notes"
};
const G = "Good", D = "BadUserAccessDenied";

// What each role may do (examples/config/roles.toml): the expected answer of each check. Every
// session holds Anonymous besides its own roles (Part 18 §4.3), so UserRolePermissions list it too.
// `nsUser`: namespace 2's DefaultUserRolePermissions on its NamespaceMetadata Object, `nsDefault`
// the answer to a Read of its DefaultRolePermissions (administrators only, Part 3 §5.2.9).
const matrix = {
    anonymous: { seesMaintenance: false, readNotes: D, writeSetpoint: D, writeMaxRate: D, call: D, monitorNotes: D,
                 translateMaintenance: "BadNoMatch", userAccessLevel: 1, rolePermissions: D, userRolePermissions: "ns=0;i=15644:33",
                 nsUser: "ns=0;i=15644:1", nsDefault: D },
    viewer: { seesMaintenance: false, readNotes: D, writeSetpoint: D, writeMaxRate: D, call: D, monitorNotes: D,
              translateMaintenance: "BadNoMatch", userAccessLevel: 1, rolePermissions: D,
              userRolePermissions: "ns=0;i=15644:33,ns=0;i=15668:2081", nsUser: "ns=0;i=15644:1", nsDefault: D },
    operator: { seesMaintenance: true, readNotes: G, writeSetpoint: G, writeMaxRate: D, call: G, monitorNotes: G,
                translateMaintenance: G, userAccessLevel: 3, rolePermissions: D,
                userRolePermissions: "ns=0;i=15644:33,ns=0;i=15680:6241", nsUser: "ns=0;i=15644:1", nsDefault: D },
    engineer: { seesMaintenance: true, readNotes: G, writeSetpoint: D, writeMaxRate: G, call: D, monitorNotes: G,
                translateMaintenance: G, userAccessLevel: 1, rolePermissions: G,
                userRolePermissions: "ns=0;i=15644:33,ns=0;i=16036:2083", nsUser: "ns=0;i=15644:1,ns=0;i=16036:33", nsDefault: D },
    admin: { seesMaintenance: true, readNotes: D, writeSetpoint: D, writeMaxRate: D, call: D, monitorNotes: D,
             translateMaintenance: G, userAccessLevel: 1, rolePermissions: G,
             userRolePermissions: "ns=0;i=15644:33,ns=0;i=15704:35", nsUser: "ns=0;i=15644:1,ns=0;i=15704:35", nsDefault: G }
};
// Namespace 2's DefaultRolePermissions as the file's `namespace` rule lists them.
const namespaceDefault = "ns=0;i=15644:1,ns=0;i=16036:33,ns=0;i=15704:35";
const metadata = "ns=1;s=Namespaces.urn:example:roles";
// RolePermissions of Line1's nodes as the roles.toml rule lists them (Part 3 §5.2.9), for the roles
// that may read it.
const line1RolePermissions = "ns=0;i=15644:33,ns=0;i=15668:2081,ns=0;i=15680:6241,ns=0;i=16036:2083,ns=0;i=15704:35";
const rolePermissionsText = (v) => (v || []).map((rp) => rp.roleId.toString() + ":" + rp.permissions).join(",");

let passed = 0, failed = 0;
function check(role, name, got, want) {
    if (String(got) === String(want)) { passed += 1; process.stdout.write("ok   " + role + " " + name + ": " + got + "\n"); }
    else { failed += 1; process.stdout.write("FAIL " + role + " " + name + ": got " + got + ", expected " + want + "\n"); }
}
const name = (sc) => sc.name;

async function runRole(o, cm, role, want) {
    const secure = role !== "anonymous";
    const client = OPCUAClient.create({
        applicationName: "uactor roles matrix", applicationUri: "urn:uactor:node-secure-client", endpointMustExist: false,
        securityMode: secure ? MessageSecurityMode.SignAndEncrypt : MessageSecurityMode.None,
        securityPolicy: secure ? SecurityPolicy.Basic256Sha256 : SecurityPolicy.None,
        connectionStrategy: { maxRetry: 0, initialDelay: 100, maxDelay: 200 },
        keepSessionAlive: false, clientCertificateManager: cm,
        certificateFile: path.resolve(o.cert), privateKeyFile: path.resolve(o.key)
    });
    await client.connect(secure ? o.eng : o.floor);
    const identity = secure ? { type: UserTokenType.UserName, userName: role, password: role + "-pw" }
                            : { type: UserTokenType.Anonymous };
    const session = await client.createSession(identity);
    try {
        // Browse: Line1, Config always; Maintenance only for the roles with Browse there.
        const br = await session.browse({ nodeId: N.plant, browseDirection: 0, includeSubtypes: true, resultMask: 63 });
        const targets = br.references.map((r) => r.nodeId.toString());
        check(role, "Browse Plant lists Line1", targets.includes(N.line1), true);
        check(role, "Browse Plant lists Maintenance", targets.includes(N.maintenance), want.seesMaintenance);
        const tr = await session.translateBrowsePath(makeBrowsePath(N.plant, "/2:Maintenance"));
        check(role, "TranslateBrowsePaths Plant/Maintenance", name(tr.statusCode), want.translateMaintenance);
        // Read: the setpoint for everyone, the maintenance notes only where allowed.
        const rd = await session.read([
            { nodeId: N.setpoint, attributeId: AttributeIds.Value },
            { nodeId: N.notes, attributeId: AttributeIds.Value },
            { nodeId: N.setpoint, attributeId: AttributeIds.UserAccessLevel },
            { nodeId: N.setpoint, attributeId: AttributeIds.RolePermissions },
            { nodeId: N.setpoint, attributeId: AttributeIds.UserRolePermissions }
        ]);
        check(role, "Read Setpoint", name(rd[0].statusCode), G);
        check(role, "Read Maintenance.Notes", name(rd[1].statusCode), want.readNotes);
        check(role, "Read Setpoint UserAccessLevel", rd[2].value.value, want.userAccessLevel);
        check(role, "Read Setpoint RolePermissions", name(rd[3].statusCode), want.rolePermissions);
        if (want.rolePermissions === G)
            check(role, "Read Setpoint RolePermissions value", rolePermissionsText(rd[3].value.value), line1RolePermissions);
        check(role, "Read Setpoint UserRolePermissions", rolePermissionsText(rd[4].value.value), want.userRolePermissions);
        // NamespaceMetadata (Part 5 §6.3.13): namespace 2's Object under Server/Namespaces, its
        // URI, and the file's namespace default as this session may see it.
        const nb = await session.browse({ nodeId: "ns=0;i=11715", browseDirection: 0, includeSubtypes: true, resultMask: 63 });
        check(role, "Browse Server/Namespaces lists urn:example:roles",
              nb.references.some((r) => r.nodeId.toString() === metadata && r.browseName.name === "urn:example:roles"), true);
        const md = await session.read([
            { nodeId: metadata + ".NamespaceUri", attributeId: AttributeIds.Value },
            { nodeId: metadata + ".DefaultUserRolePermissions", attributeId: AttributeIds.Value },
            { nodeId: metadata + ".DefaultRolePermissions", attributeId: AttributeIds.Value },
            { nodeId: metadata + ".DefaultAccessRestrictions", attributeId: AttributeIds.Value }
        ]);
        check(role, "Read NamespaceMetadata NamespaceUri", md[0].value.value, "urn:example:roles");
        check(role, "Read NamespaceMetadata DefaultUserRolePermissions", rolePermissionsText(md[1].value.value), want.nsUser);
        check(role, "Read NamespaceMetadata DefaultRolePermissions", name(md[2].statusCode), want.nsDefault);
        if (want.nsDefault === G)
            check(role, "Read NamespaceMetadata DefaultRolePermissions value", rolePermissionsText(md[2].value.value), namespaceDefault);
        check(role, "Read NamespaceMetadata DefaultAccessRestrictions", md[3].value.value, 0);
        // Write: the setpoint (operators), the configuration (engineers).
        const ws = await session.write([
            { nodeId: N.setpoint, attributeId: AttributeIds.Value, value: { value: { dataType: DataType.Double, value: 50 } } },
            { nodeId: N.maxRate, attributeId: AttributeIds.Value, value: { value: { dataType: DataType.Double, value: 12 } } }
        ]);
        check(role, "Write Setpoint", name(ws[0]), want.writeSetpoint);
        check(role, "Write Config.MaxRate", name(ws[1]), want.writeMaxRate);
        // Call: SetSetpoint on Line1 (operators).
        const cr = await session.call({ objectId: N.line1, methodId: N.setSetpoint,
                                        inputArguments: [{ dataType: DataType.Double, value: 55 }] });
        check(role, "Call SetSetpoint", name(cr.statusCode), want.call);
        // CreateMonitoredItems: per item.
        const sub = await session.createSubscription2({ requestedPublishingInterval: 200, requestedLifetimeCount: 100,
                                                        requestedMaxKeepAliveCount: 10, publishingEnabled: true });
        const cm2 = await session.createMonitoredItems({
            subscriptionId: sub.subscriptionId, timestampsToReturn: TimestampsToReturn.Both,
            itemsToCreate: [N.temperature, N.notes].map((nodeId, i) => ({
                itemToMonitor: { nodeId, attributeId: AttributeIds.Value }, monitoringMode: MonitoringMode.Reporting,
                requestedParameters: { clientHandle: i + 1, samplingInterval: 100, queueSize: 1, discardOldest: true }
            }))
        });
        check(role, "CreateMonitoredItems Temperature", name(cm2.results[0].statusCode), G);
        check(role, "CreateMonitoredItems Maintenance.Notes", name(cm2.results[1].statusCode), want.monitorNotes);
        await sub.terminate();
    } finally {
        await session.close();
        await client.disconnect();
    }
}

async function main() {
    const o = parseArgs(process.argv.slice(2));
    const keepAlive = setInterval(() => {}, 1000);
    const cm = new OPCUACertificateManager({ rootFolder: o.pki, automaticallyAcceptUnknownCertificate: false });
    await cm.initialize();
    const roles = o["after-reload"] ? ["viewer"] : ["anonymous", "viewer", "operator", "engineer", "admin"];
    if (o["after-reload"]) Object.assign(matrix.viewer, { writeSetpoint: G, call: G, userAccessLevel: 3,
                                                          userRolePermissions: "ns=0;i=15644:33,ns=0;i=15668:6241",
                                                          nsUser: "ns=0;i=15644:1,ns=0;i=15668:33" });
    for (const role of roles) {
        try {
            await runRole(o, cm, role, matrix[role]);
        } catch (err) {
            failed += 1;
            process.stdout.write("FAIL " + role + " session: " + (err && err.message ? err.message : err) + "\n");
        }
    }
    process.stdout.write("matrix: " + passed + " of " + (passed + failed) + " checks passed\n");
    clearInterval(keepAlive);
    process.exit(failed === 0 ? 0 : 1);
}

main().catch((err) => { process.stdout.write("FAIL internal: " + (err && err.stack ? err.stack : err) + "\n"); process.exit(1); });
