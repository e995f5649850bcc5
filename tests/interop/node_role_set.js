#!/usr/bin/env node
// The RoleSet (Part 18 §4.2-4.4, docs/security.md "The RoleSet") of examples/config/roles.toml with
// node-opcua's client: the admin (SecurityAdmin) over Basic256Sha256/SignAndEncrypt reads the role
// Objects' Identities, calls Engineer.AddIdentity(UserName viewer) and Engineer.AddApplication;
// then a new viewer session holds Engineer (writes Config.MaxRate, an engineer's node) while the
// viewer's session from before keeps its roles. Refused: the same call by the admin over Sign
// (BadSecurityModeInsufficient), by the operator over SignAndEncrypt and by an anonymous session
// over None (BadUserAccessDenied); reading Identities as the operator (BadUserAccessDenied). The
// admin's AddRole makes NightShift (its Object, its AddIdentity), RemoveRole takes it away again and
// refuses a well-known role (BadRequestNotAllowed). The admin writes Engineer.ApplicationsExclude
// (Part 18 §4.4.1; the operator and the admin over Sign are refused), and namespace 0's published
// permissions hold for the anonymous session (no certificate group in a Browse, no Call of
// PublishSubscribe.AddConnection or RequestServerStateChange).
//
//   node node_role_set.js --floor URL --eng URL --pki DIR --cert CERT --key KEY
//
// Prints `ok CHECK` or `FAIL CHECK: ...` per check and `role set: N of M checks passed`; exit 0
// only when all passed.
"use strict";

const util = require("util");
console.log = (...args) => process.stderr.write(util.format(...args) + "\n");
console.info = console.log;

const path = require("path");
const {
    OPCUAClient, OPCUACertificateManager, MessageSecurityMode, SecurityPolicy, UserTokenType, AttributeIds,
    DataType, Variant, resolveNodeId
} = require("node-opcua");
// node-opcua does not re-export these two; its types package does.
const { IdentityMappingRuleType, IdentityCriteriaType } = require("node-opcua-types");

function parseArgs(argv) {
    const o = {};
    for (let i = 0; i < argv.length; i += 2) o[argv[i].replace(/^--/, "")] = argv[i + 1];
    for (const k of ["floor", "eng", "pki", "cert", "key"]) {
        if (!o[k]) { process.stdout.write("usage: --floor URL --eng URL --pki DIR --cert CERT --key KEY\n"); process.exit(2); }
    }
    return o;
}

// Namespace 0's ids (NodeIds.csv).
const ROLE_SET = "ns=0;i=15606";
const ENGINEER = "ns=0;i=16036", ENGINEER_IDENTITIES = "ns=0;i=16236", ENGINEER_ADD_IDENTITY = "ns=0;i=16041";
const ENGINEER_APPLICATIONS = "ns=0;i=16237", ENGINEER_ADD_APPLICATION = "ns=0;i=16239";
const ENGINEER_APPLICATIONS_EXCLUDE = "ns=0;i=15424";
const SERVER_CONFIGURATION = "ns=0;i=12637", CERTIFICATE_GROUPS = "ns=0;i=14053";
const PUBLISH_SUBSCRIBE = "ns=0;i=14443", ADD_CONNECTION = "ns=0;i=17366", REQUEST_STATE_CHANGE = "ns=0;i=12886";
const SECURITY_ADMIN_IDENTITIES = "ns=0;i=16258";
const ADD_ROLE = "ns=0;i=16301", REMOVE_ROLE = "ns=0;i=16304";
const MAX_RATE = "ns=2;s=Plant.Config.MaxRate";

let passed = 0, failed = 0;
function check(what, got, want) {
    if (String(got) === String(want)) { passed += 1; process.stdout.write("ok   " + what + ": " + got + "\n"); }
    else { failed += 1; process.stdout.write("FAIL " + what + ": got " + got + ", expected " + want + "\n"); }
}
const rulesText = (v) => (v || []).map((r) => r.criteriaType + ":" + (r.criteria || "")).join(",");

async function open(o, cm, url, mode, user) {
    const client = OPCUAClient.create({
        applicationName: "uactor role set", applicationUri: "urn:uactor:node-secure-client", endpointMustExist: false,
        securityMode: mode,
        securityPolicy: mode === MessageSecurityMode.None ? SecurityPolicy.None : SecurityPolicy.Basic256Sha256,
        connectionStrategy: { maxRetry: 0, initialDelay: 100, maxDelay: 200 },
        keepSessionAlive: false, clientCertificateManager: cm,
        certificateFile: path.resolve(o.cert), privateKeyFile: path.resolve(o.key)
    });
    await client.connect(url);
    const identity = user ? { type: UserTokenType.UserName, userName: user, password: user + "-pw" }
                          : { type: UserTokenType.Anonymous };
    const session = await client.createSession(identity);
    return { client, session, close: async () => { await session.close(); await client.disconnect(); } };
}

const addIdentity = (session, criteriaType, criteria) => session.call({
    objectId: ENGINEER, methodId: ENGINEER_ADD_IDENTITY,
    inputArguments: [new Variant({ dataType: DataType.ExtensionObject,
                                   value: new IdentityMappingRuleType({ criteriaType, criteria }) })]
});
const writeMaxRate = async (session, v) => (await session.write({
    nodeId: MAX_RATE, attributeId: AttributeIds.Value, value: { value: { dataType: DataType.Double, value: v } }
})).name;

async function main() {
    const o = parseArgs(process.argv.slice(2));
    const keepAlive = setInterval(() => {}, 1000);
    const cm = new OPCUACertificateManager({ rootFolder: o.pki, automaticallyAcceptUnknownCertificate: false });
    await cm.initialize();
    const SE = MessageSecurityMode.SignAndEncrypt;

    // A viewer session opened before the change: it keeps the roles it activated with.
    const before = await open(o, cm, o.eng, SE, "viewer");
    check("viewer before: Write Config.MaxRate", await writeMaxRate(before.session, 11), "BadUserAccessDenied");

    const admin = await open(o, cm, o.eng, SE, "admin");
    const br = await admin.session.browse({ nodeId: ROLE_SET, browseDirection: 0, includeSubtypes: true, resultMask: 63 });
    const names = br.references.map((r) => r.browseName.name);
    for (const role of ["Anonymous", "AuthenticatedUser", "Observer", "Operator", "Engineer", "Supervisor",
                        "ConfigureAdmin", "SecurityAdmin"])
        check("admin: Browse RoleSet lists " + role, names.includes(role), true);
    let rd = await admin.session.read([
        { nodeId: SECURITY_ADMIN_IDENTITIES, attributeId: AttributeIds.Value },
        { nodeId: ENGINEER_IDENTITIES, attributeId: AttributeIds.Value }
    ]);
    check("admin: Read SecurityAdmin.Identities", rd[0].statusCode.name, "Good");
    check("admin: SecurityAdmin.Identities", rulesText(rd[0].value.value), IdentityCriteriaType.UserName + ":admin");
    check("admin: Engineer.Identities", rulesText(rd[1].value.value), IdentityCriteriaType.UserName + ":engineer");

    // Part 18 §4.4.1: ApplicationsExclude is written, by SecurityAdmin over SignAndEncrypt only.
    const writeExclude = async (s, v) => (await s.write({ nodeId: ENGINEER_APPLICATIONS_EXCLUDE,
        attributeId: AttributeIds.Value, value: { value: { dataType: DataType.Boolean, value: v } } })).name;

    // Refusals first: nothing may change.
    const operator = await open(o, cm, o.eng, SE, "operator");
    // Every session holds Anonymous (Part 18 §4.3, decision 0075), which may browse the RoleSet:
    // a logged-in operator sees the roles (not their contents).
    const opRoles = (await operator.session.browse({ nodeId: ROLE_SET, browseDirection: 0, includeSubtypes: true,
                                                      resultMask: 63 })).references.map((r) => r.browseName.name);
    check("operator: Browse RoleSet lists Operator", opRoles.includes("Operator"), true);
    check("operator: Write Engineer.ApplicationsExclude", await writeExclude(operator.session, false), "BadUserAccessDenied");
    check("operator: AddIdentity", (await addIdentity(operator.session, IdentityCriteriaType.UserName, "viewer")).statusCode.name,
          "BadUserAccessDenied");
    check("operator: Read Engineer.Identities",
          (await operator.session.read({ nodeId: ENGINEER_IDENTITIES, attributeId: AttributeIds.Value })).statusCode.name,
          "BadUserAccessDenied");
    await operator.close();
    const signed = await open(o, cm, o.eng, MessageSecurityMode.Sign, "admin");
    check("admin over Sign: AddIdentity", (await addIdentity(signed.session, IdentityCriteriaType.UserName, "viewer")).statusCode.name,
          "BadSecurityModeInsufficient");
    check("admin over Sign: Write Engineer.ApplicationsExclude", await writeExclude(signed.session, false),
          "BadSecurityModeInsufficient");
    await signed.close();
    const anonymous = await open(o, cm, o.floor, MessageSecurityMode.None, null);
    check("anonymous over None: AddIdentity",
          (await addIdentity(anonymous.session, IdentityCriteriaType.UserName, "viewer")).statusCode.name, "BadUserAccessDenied");
    // Namespace 0's published defaults for an anonymous session: ServerConfiguration may be looked
    // at, not its certificate group; PublishSubscribe's AddConnection and RequestServerStateChange
    // are refused before anything else is asked.
    const anonGroups = (await anonymous.session.browse({ nodeId: CERTIFICATE_GROUPS, browseDirection: 0,
        includeSubtypes: true, resultMask: 63 })).references.map((r) => r.browseName.name);
    check("anonymous: Browse CertificateGroups lists DefaultApplicationGroup", anonGroups.includes("DefaultApplicationGroup"), false);
    rd = await anonymous.session.read({ nodeId: SERVER_CONFIGURATION, attributeId: AttributeIds.BrowseName });
    check("anonymous: Read ServerConfiguration's BrowseName", rd.statusCode.name, "Good");
    rd = await anonymous.session.read({ nodeId: PUBLISH_SUBSCRIBE, attributeId: AttributeIds.UserRolePermissions });
    check("anonymous: UserRolePermissions of PublishSubscribe",
          (rd.value.value || []).map((p) => p.roleId.toString() + "=" + p.permissions).join(","), "ns=0;i=15644=4097");
    const addConnection = await anonymous.session.call({ objectId: PUBLISH_SUBSCRIBE, methodId: ADD_CONNECTION,
                                                         inputArguments: [] });
    check("anonymous: Call PublishSubscribe.AddConnection", addConnection.statusCode.name, "BadUserAccessDenied");
    const stateChange = await anonymous.session.call({ objectId: "ns=0;i=2253", methodId: REQUEST_STATE_CHANGE,
                                                       inputArguments: [] });
    check("anonymous: Call Server.RequestServerStateChange", stateChange.statusCode.name, "BadUserAccessDenied");
    await anonymous.close();
    rd = await admin.session.read({ nodeId: ENGINEER_IDENTITIES, attributeId: AttributeIds.Value });
    check("admin: Engineer.Identities after the refusals", rulesText(rd.value.value), IdentityCriteriaType.UserName + ":engineer");

    // The change, and what it answers twice.
    check("admin: AddIdentity UserName viewer",
          (await addIdentity(admin.session, IdentityCriteriaType.UserName, "viewer")).statusCode.name, "Good");
    check("admin: AddIdentity again",
          (await addIdentity(admin.session, IdentityCriteriaType.UserName, "viewer")).statusCode.name, "BadAlreadyExists");
    check("admin: AddIdentity GroupId without its group",
          (await addIdentity(admin.session, IdentityCriteriaType.GroupId, "")).statusCode.name, "BadInvalidArgument");
    const app = await admin.session.call({ objectId: ENGINEER, methodId: ENGINEER_ADD_APPLICATION,
                                           inputArguments: [{ dataType: DataType.String, value: "urn:plant:laptop" }] });
    check("admin: AddApplication", app.statusCode.name, "Good");
    rd = await admin.session.read([
        { nodeId: ENGINEER_IDENTITIES, attributeId: AttributeIds.Value },
        { nodeId: ENGINEER_APPLICATIONS, attributeId: AttributeIds.Value }
    ]);
    check("admin: Engineer.Identities after AddIdentity", rulesText(rd[0].value.value),
          IdentityCriteriaType.UserName + ":engineer," + IdentityCriteriaType.UserName + ":viewer");
    check("admin: Engineer.Applications", (rd[1].value.value || []).join(","), "urn:plant:laptop");
    // ApplicationsExclude false: Applications becomes an include list, which this client is not on.
    rd = await admin.session.read({ nodeId: ENGINEER_APPLICATIONS_EXCLUDE, attributeId: AttributeIds.AccessLevel });
    check("admin: Engineer.ApplicationsExclude's AccessLevel (CurrentRead|CurrentWrite)", rd.value.value, 3);
    check("admin: Write Engineer.ApplicationsExclude false", await writeExclude(admin.session, false), "Good");
    rd = await admin.session.read({ nodeId: ENGINEER_APPLICATIONS_EXCLUDE, attributeId: AttributeIds.Value });
    check("admin: Engineer.ApplicationsExclude", rd.value.value, false);
    const included = await open(o, cm, o.eng, SE, "viewer");
    check("viewer while Engineer includes the laptop only: Write Config.MaxRate", await writeMaxRate(included.session, 12),
          "BadUserAccessDenied");
    await included.close();
    check("admin: Write Engineer.ApplicationsExclude true", await writeExclude(admin.session, true), "Good");
    check("admin: Write Engineer.ApplicationsExclude a string", (await admin.session.write({
        nodeId: ENGINEER_APPLICATIONS_EXCLUDE, attributeId: AttributeIds.Value,
        value: { value: { dataType: DataType.String, value: "no" } } })).name, "BadTypeMismatch");

    // Namespace 0's published defaults (docs/decisions/0068): the admin sees the certificate group.
    const groupNames = async (s) => (await s.browse({ nodeId: CERTIFICATE_GROUPS, browseDirection: 0,
        includeSubtypes: true, resultMask: 63 })).references.map((r) => r.browseName.name);
    check("admin: Browse CertificateGroups lists DefaultApplicationGroup",
          (await groupNames(admin.session)).includes("DefaultApplicationGroup"), true);

    // RoleSet's AddRole and RemoveRole (Part 18 §4.2.2-4.2.3): a new role Object under RoleSet with
    // its own methods and properties; a well-known role cannot be removed.
    const addRole = (name) => admin.session.call({ objectId: ROLE_SET, methodId: ADD_ROLE, inputArguments: [
        { dataType: DataType.String, value: name }, { dataType: DataType.String, value: "" }] });
    const removeRole = (id) => admin.session.call({ objectId: ROLE_SET, methodId: REMOVE_ROLE, inputArguments: [
        { dataType: DataType.NodeId, value: resolveNodeId(id) }] });
    const roleSetNames = async () => (await admin.session.browse({ nodeId: ROLE_SET, browseDirection: 0,
        includeSubtypes: true, resultMask: 63 })).references.map((r) => r.browseName.name);
    const added = await addRole("NightShift");
    check("admin: AddRole NightShift", added.statusCode.name, "Good");
    const night = added.outputArguments && added.outputArguments[0] ? added.outputArguments[0].value.toString() : "";
    check("admin: AddRole's RoleNodeId", night, "ns=1;s=Role.NightShift");
    check("admin: Browse RoleSet lists NightShift", (await roleSetNames()).includes("NightShift"), true);
    const nightRule = await admin.session.call({ objectId: night, methodId: night + ".AddIdentity", inputArguments: [
        new Variant({ dataType: DataType.ExtensionObject,
                      value: new IdentityMappingRuleType({ criteriaType: IdentityCriteriaType.UserName, criteria: "operator" }) })] });
    check("admin: NightShift.AddIdentity UserName operator", nightRule.statusCode.name, "Good");
    rd = await admin.session.read({ nodeId: night + ".Identities", attributeId: AttributeIds.Value });
    check("admin: NightShift.Identities", rulesText(rd.value.value), IdentityCriteriaType.UserName + ":operator");
    check("admin: AddRole NightShift again", (await addRole("NightShift")).statusCode.name, "BadInvalidArgument");
    check("admin: RemoveRole Operator (well-known)", (await removeRole("ns=0;i=15680")).statusCode.name, "BadRequestNotAllowed");
    check("admin: RemoveRole NightShift", (await removeRole(night)).statusCode.name, "Good");
    check("admin: Browse RoleSet after RemoveRole", (await roleSetNames()).includes("NightShift"), false);
    check("admin: RemoveRole NightShift again", (await removeRole(night)).statusCode.name, "BadNodeIdUnknown");
    await admin.close();

    // A new viewer session is an Engineer now (an exclude list without this client's URI); the
    // one from before is not.
    const after = await open(o, cm, o.eng, SE, "viewer");
    check("viewer after: Write Config.MaxRate", await writeMaxRate(after.session, 13), "Good");
    check("viewer before, still: Write Config.MaxRate", await writeMaxRate(before.session, 14), "BadUserAccessDenied");
    await after.close();
    await before.close();

    process.stdout.write("role set: " + passed + " of " + (passed + failed) + " checks passed\n");
    clearInterval(keepAlive);
    process.exit(failed === 0 ? 0 : 1);
}

main().catch((err) => { process.stdout.write("FAIL internal: " + (err && err.stack ? err.stack : err) + "\n"); process.exit(1); });
