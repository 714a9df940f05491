/**
 * Small scanner reports written from the public output formats of Checkov
 * (`-o json`), Trivy (`-f json`, schema 2), Prowler (`-M json-asff`) and
 * ScoutSuite (`scoutsuite_results_*.js`), for tests where the shared fixtures
 * have no sample of the kind. The first four have invented values in the
 * formats' shapes; the later ones are transcribed from DefectDojo's public
 * parser test scans, each naming its file and commit.
 */

/** A Checkov terraform report: one passed, two failed checks. */
export const CHECKOV_REPORT = {
  check_type: "terraform",
  results: {
    passed_checks: [{
      check_id: "CKV_AWS_19",
      check_name: "Ensure all data stored in the S3 bucket is securely encrypted at rest",
      check_result: { result: "PASSED", evaluated_keys: ["server_side_encryption_configuration"] },
      file_path: "/s3.tf",
      file_line_range: [20, 30],
      resource: "aws_s3_bucket.logs",
      severity: null,
      guideline: "https://docs.example.invalid/ckv-aws-19",
    }],
    failed_checks: [
      {
        check_id: "CKV_AWS_20",
        bc_check_id: "BC_AWS_S3_1",
        check_name: "S3 Bucket has an ACL defined which allows public READ access.",
        check_result: { result: "FAILED", evaluated_keys: ["acl"] },
        file_path: "/s3.tf",
        repo_file_path: "/s3.tf",
        file_line_range: [1, 13],
        resource: "aws_s3_bucket.data",
        resource_address: "aws_s3_bucket.data",
        severity: "HIGH",
        benchmarks: null,
        guideline: "https://docs.example.invalid/ckv-aws-20",
      },
      {
        check_id: "CKV_AWS_24",
        check_name: "Ensure no security groups allow ingress from 0.0.0.0:0 to port 22",
        benchmarks: null,
        check_result: { result: "FAILED", evaluated_keys: ["ingress/[0]/cidr_blocks"] },
        file_path: "/ec2.tf",
        file_line_range: [40, 62],
        resource: "aws_security_group.web-node",
        severity: null,
        guideline: "https://docs.example.invalid/ckv-aws-24",
      },
    ],
    skipped_checks: [],
    parsing_errors: [],
  },
  summary: {
    passed: 1,
    failed: 2,
    skipped: 0,
    parsing_errors: 0,
    resource_count: 3,
    checkov_version: "3.2.0",
  },
};

/** A Trivy image report with a vulnerability, two misconfigurations (one passed) and a secret. */
export const TRIVY_REPORT = {
  SchemaVersion: 2,
  CreatedAt: "2024-05-01T10:00:00Z",
  ArtifactName: "registry.example.invalid/shop/web:1.4",
  ArtifactType: "container_image",
  Metadata: { OS: { Family: "alpine", Name: "3.10.9" } },
  Results: [
    {
      Target: "registry.example.invalid/shop/web:1.4 (alpine 3.10.9)",
      Class: "os-pkgs",
      Type: "alpine",
      Vulnerabilities: [{
        VulnerabilityID: "CVE-2021-36159",
        PkgName: "apk-tools",
        InstalledVersion: "2.10.6-r0",
        FixedVersion: "2.10.7-r0",
        Severity: "CRITICAL",
        Title: "libfetch: out-of-bounds read",
        Description: "An out-of-bounds read in libfetch.",
        CVSS: { nvd: { V3Score: 9.1 } },
      }],
    },
    {
      Target: "Dockerfile",
      Class: "config",
      Type: "dockerfile",
      Misconfigurations: [
        {
          Type: "Dockerfile Security Check",
          ID: "DS002",
          AVDID: "AVD-DS-0002",
          Title: "Image user should not be 'root'",
          Message: "Specify at least 1 USER command in Dockerfile with non-root user as argument",
          Resolution: "Add 'USER <non root user name>' line to the Dockerfile",
          Severity: "HIGH",
          Status: "FAIL",
        },
        {
          ID: "DS001",
          AVDID: "AVD-DS-0001",
          Title: "':latest' tag used",
          Severity: "MEDIUM",
          Status: "PASS",
        },
      ],
    },
    {
      Target: "app/.env",
      Class: "secret",
      Secrets: [{
        RuleID: "aws-access-key-id",
        Category: "AWS",
        Severity: "CRITICAL",
        Title: "AWS Access Key ID",
        StartLine: 3,
        EndLine: 3,
        Match: "AWS_ACCESS_KEY_ID=********************",
      }],
    },
  ],
};

/** Prowler ASFF: one failed, one passed finding. */
export const ASFF_REPORT = [
  {
    SchemaVersion: "2018-10-08",
    Id: "prowler-s3_bucket_public_access-123456789012-us-east-1-data",
    ProductArn: "arn:aws:securityhub:us-east-1::product/prowler/prowler",
    RecordState: "ACTIVE",
    ProductFields: {
      ProviderName: "Prowler",
      ProviderVersion: "3.11.0",
      ProwlerResourceName: "data",
    },
    GeneratorId: "prowler-s3_bucket_public_access",
    AwsAccountId: "123456789012",
    Types: ["Data Protection"],
    CreatedAt: "2024-05-01T10:00:00Z",
    UpdatedAt: "2024-05-01T10:00:00Z",
    Severity: { Label: "CRITICAL" },
    Title: "Ensure there are no S3 buckets open to Everyone or Any AWS user.",
    Description: "S3 Bucket data has a public policy.",
    Resources: [{
      Type: "AwsS3Bucket",
      Id: "arn:aws:s3:::data",
      Partition: "aws",
      Region: "us-east-1",
    }],
    Compliance: {
      Status: "FAILED",
      RelatedRequirements: ["CIS-1.4 2.1.5", "PCI-3.2.1 s3"],
      AssociatedStandards: [{ StandardsId: "CIS-1.4" }, { StandardsId: "PCI-3.2.1" }],
    },
    Remediation: {
      Recommendation: { Text: "Remove the public grant.", Url: "https://docs.example.invalid" },
    },
  },
  {
    SchemaVersion: "2018-10-08",
    Id: "prowler-iam_root_mfa_enabled-123456789012-us-east-1-root",
    ProductArn: "arn:aws:securityhub:us-east-1::product/prowler/prowler",
    GeneratorId: "prowler-iam_root_mfa_enabled",
    AwsAccountId: "123456789012",
    Severity: { Label: "CRITICAL" },
    Title: "Ensure MFA is enabled for the root account",
    Resources: [{ Type: "AwsAccount", Id: "arn:aws:iam::123456789012:root", Region: "us-east-1" }],
    Compliance: { Status: "PASSED", RelatedRequirements: ["CIS-1.4 1.5"] },
  },
];

/** A ScoutSuite results script: one flagged SSH rule, one rule with nothing flagged, one bucket rule. */
export const SCOUTSUITE_SCRIPT = `scoutsuite_results =
${
  JSON.stringify({
    account_id: "123456789012",
    provider_code: "aws",
    provider_name: "Amazon Web Services",
    services: {
      ec2: {
        findings: {
          "ec2-security-group-opens-SSH-port-to-all": {
            checked_items: 8,
            compliance: [{
              name: "CIS Amazon Web Services Foundations",
              reference: "4.1",
              version: "1.2.0",
            }],
            dashboard_name: "Rules",
            description: "SSH Port Open to All",
            flagged_items: 1,
            items: [
              "ec2.regions.us-east-1.vpcs.vpc-12345678.security_groups.sg-00000008.rules.ingress.protocols.TCP.ports.22.cidrs.0.CIDR",
            ],
            level: "danger",
            path:
              "ec2.regions.id.vpcs.id.security_groups.id.rules.id.protocols.id.ports.id.cidrs.id.CIDR",
            rationale: "Exposing SSH to the internet invites brute force.",
            remediation: null,
            service: "EC2",
          },
          "ec2-default-security-group-in-use": {
            checked_items: 1,
            description: "Default security groups in use",
            flagged_items: 0,
            items: [],
            level: "warning",
            path: "ec2.regions.id.vpcs.id.security_groups.id",
          },
        },
      },
      s3: {
        findings: {
          "s3-bucket-world-policy-star": {
            checked_items: 1,
            description: "Bucket world-accessible (policy)",
            flagged_items: 1,
            items: ["s3.buckets.cloudmapper_demo"],
            level: "warning",
            path: "s3.buckets.id",
            compliance: null,
          },
        },
      },
    },
  })
}`;

// The samples below are transcribed from DefectDojo's public parser test scans
// (github.com/DefectDojo/django-DefectDojo, BSD-3-Clause, under unittests/scans/): the fields
// the importers read are kept as the files have them, long prose is shortened where noted, and
// fields no importer reads are left out.

/** An OCSF finding of {@linkcode PROWLER_OCSF_MANY_VULN}, built from what differs between the three. */
function ocsfFinding(
  check: string,
  role: string,
  init: {
    status: string;
    title: string;
    detail: string;
    compliance: Record<string, string[]>;
  },
): Record<string, unknown> {
  return {
    metadata: {
      event_code: check,
      product: { name: "Prowler", vendor_name: "Prowler", version: "4.2.1" },
      version: "1.2.0",
    },
    severity_id: 4,
    severity: "High",
    status: init.status,
    status_code: "FAIL",
    status_detail: init.detail,
    status_id: 3,
    unmapped: { categories: "trustboundaries", compliance: init.compliance },
    finding_info: {
      created_time: "2024-06-03T14:15:19.382075",
      desc: init.title,
      product_uid: "prowler",
      title: init.title,
      uid: `prowler-aws-${check}-123456789012-us-east-1-${role}`,
    },
    resources: [{
      cloud_partition: "aws",
      region: "us-east-1",
      group: { name: "iam" },
      name: role,
      type: "AwsIamRole",
      uid: `arn:aws:iam::123456789012:role/${role}`,
    }],
    category_uid: 2,
    class_name: "DetectionFinding",
    class_uid: 2004,
    cloud: {
      account: { type: "AWS_Account", type_id: 10, uid: "123456789012" },
      provider: "aws",
      region: "us-east-1",
    },
    time_dt: "2024-06-03T14:15:19.382075",
    remediation: { desc: "Apply the principle of least privilege." },
    type_uid: 200401,
  };
}

/**
 * Prowler 4.2.1 OCSF: three failed IAM role checks, the third muted (status
 * `Suppressed`), the second mapped to MITRE-ATTACK T1078 and AWS-Foundational-
 * Technical-Review IAM-0012. From DefectDojo's
 * `aws_prowler_v3plus/many_vuln_after_4_5_0.ocsf.json` at 3d8d90d0 (remediation
 * text shortened; related URLs, notes and risk details left out).
 */
export const PROWLER_OCSF_MANY_VULN = [
  ocsfFinding(
    "iam_role_administratoraccess_policy_permissive_trust_relationship",
    "myAdministratorExecutionRole",
    {
      status: "New",
      title:
        "Ensure IAM Roles with attached AdministratorAccess policy have a well defined trust relationship",
      detail:
        "IAM Role myAdministratorExecutionRole has AdministratorAccess policy attached that has too permissive trust relationship.",
      compliance: {},
    },
  ),
  ocsfFinding("iam_role_cross_account_readonlyaccess_policy", "AuditRole", {
    status: "New",
    title: "Ensure IAM Roles do not have ReadOnlyAccess access for external AWS accounts",
    detail: "IAM Role AuditRole gives cross account read-only access.",
    compliance: {
      "MITRE-ATTACK": ["T1078"],
      "AWS-Foundational-Technical-Review": ["IAM-0012"],
    },
  }),
  ocsfFinding("iam_role_permissive_trust_relationship", "CrossAccountResourceAccessRole", {
    status: "Suppressed",
    title: "Ensure IAM Roles do not allow assume role from any role of a cross account",
    detail:
      "IAM Role CrossAccountResourceAccessRole has permissive trust relationship to other accounts",
    compliance: {},
  }),
];

/** A Security Hub control finding of {@linkcode SECURITY_HUB_PASSED_CONTROLS}. */
function securityHubControl(control: string, uuid: string, title: string): Record<string, unknown> {
  const standard = "aws-foundational-security-best-practices/v/1.0.0";
  return {
    SchemaVersion: "2018-10-08",
    Id:
      `arn:aws:securityhub:us-east-1:012345678912:subscription/${standard}/${control}/finding/${uuid}`,
    ProductArn: "arn:aws:securityhub:us-east-1::product/aws/securityhub",
    GeneratorId: `${standard}/${control}`,
    AwsAccountId: "012345678912",
    CreatedAt: "2020-06-08T14:33:07.560Z",
    UpdatedAt: "2020-06-14T21:02:53.454Z",
    Severity: { Product: 0, Label: "INFORMATIONAL", Normalized: 0, Original: "INFORMATIONAL" },
    Title: `${control} ${title}`,
    ProductFields: {
      StandardsArn: `arn:aws:securityhub:::standards/${standard}`,
      ControlId: control,
      StandardsControlArn:
        `arn:aws:securityhub:us-east-1:012345678912:control/${standard}/${control}`,
      "aws/securityhub/ProductName": "Security Hub",
      "aws/securityhub/CompanyName": "AWS",
    },
    Resources: [{
      Type: "AwsAccount",
      Id: "AWS::::Account:012345678912",
      Partition: "aws",
      Region: "us-east-1",
    }],
    Compliance: {
      Status: "PASSED",
      StatusReasons: [{ ReasonCode: "CONFIG_EVALUATIONS_EMPTY" }],
    },
    WorkflowState: "NEW",
    Workflow: { Status: "NEW" },
    RecordState: "ACTIVE",
  };
}

/**
 * Security Hub's Foundational Security Best Practices: three PASSED control
 * findings (IAM.5, SSM.2, ELBv2.1) in the lower-case `{"findings": [...]}`
 * export. From DefectDojo's `awssecurityhub/config_many_findings.json` at
 * 04cb2e2f (descriptions, remediation, status reason texts and the other
 * product fields left out).
 */
export const SECURITY_HUB_PASSED_CONTROLS = {
  findings: [
    securityHubControl(
      "IAM.5",
      "de861909-2d26-4e45-bd86-19d2ab6ceef1",
      "MFA should be enabled for all IAM users that have console password",
    ),
    securityHubControl(
      "SSM.2",
      "c3c9b6b4-4f33-4d9c-b81a-646e6c187a99",
      "EC2 instances managed by Systems Manager should have a patch compliance status of COMPLIANT after a patch installation",
    ),
    securityHubControl(
      "ELBv2.1",
      "27aa50f4-d793-4e54-8649-4522e876230f",
      "Application Load Balancer should be configured to redirect all HTTP requests to HTTPS",
    ),
  ],
};

/** A failed check of {@linkcode CHECKOV_GCP_BENCHMARKS}. */
function checkovFailed(
  check: [id: string, bcId: string, name: string, severity: string],
  resource: string,
  lines: [number, number],
  benchmarks: Record<string, { name: string; description: string }[]>,
): Record<string, unknown> {
  const [checkId, bcCheckId, checkName, severity] = check;
  return {
    check_id: checkId,
    bc_check_id: bcCheckId,
    check_name: checkName,
    check_result: { result: "FAILED" },
    file_path: "/gcs.tf",
    file_line_range: lines,
    resource,
    resource_address: null,
    severity,
    benchmarks,
  };
}

/**
 * Checkov 2.2.34 on Terraform for GCP: four failed checks, two naming their
 * benchmark controls (CIS GCP V1.1 5.2; ISO27001 A.8.2.3 and A.14.1.3 with
 * CIS GCP V1.1 5.1). From DefectDojo's `checkov/checkov-report-severity.json`
 * at 029409be (code blocks, evaluated keys and guideline URLs left out).
 */
export const CHECKOV_GCP_BENCHMARKS = {
  check_type: "terraform",
  results: {
    passed_checks: [],
    failed_checks: [
      checkovFailed(
        [
          "CKV_GCP_29",
          "BC_GCP_GCS_2",
          "Ensure that Cloud Storage buckets have uniform bucket-level access enabled",
          "MEDIUM",
        ],
        "google_storage_bucket.terragoat_website",
        [1, 15],
        {
          "CIS GCP V1.1": [{
            name: "5.2",
            description:
              "Ensure that Cloud Storage buckets have uniform bucket-level access enabled",
          }],
        },
      ),
      checkovFailed(
        ["CKV_GCP_62", "BC_GCP_GCS_3", "Bucket should log access", "MEDIUM"],
        "google_storage_bucket.terragoat_website",
        [1, 15],
        {},
      ),
      checkovFailed(
        ["CKV_GCP_78", "BC_GCP_GENERAL_39", "Ensure Cloud storage has versioning enabled", "LOW"],
        "google_storage_bucket.terragoat_website",
        [1, 15],
        {},
      ),
      checkovFailed(
        [
          "CKV_GCP_28",
          "BC_GCP_PUBLIC_1",
          "Ensure that Cloud Storage bucket is not anonymously or publicly accessible",
          "HIGH",
        ],
        "google_storage_bucket_iam_binding.allow_public_read",
        [17, 21],
        {
          ISO27001: [
            { name: "A.8.2.3", description: "Disciplinary process" },
            { name: "A.14.1.3", description: "Protecting application service transactions" },
          ],
          "CIS GCP V1.1": [{
            name: "5.1",
            description:
              "Ensure that Cloud Storage bucket is not anonymously or publicly accessible",
          }],
        },
      ),
    ],
    skipped_checks: [],
    parsing_errors: [],
  },
  summary: {
    passed: 0,
    failed: 4,
    skipped: 0,
    parsing_errors: 0,
    resource_count: 2,
    checkov_version: "2.2.34",
  },
};

/** A ScoutSuite GCP rule of {@linkcode SCOUTSUITE_GCP_SCRIPT}. */
/** A warning flagging both sample buckets for a setting they leave off. */
function bucketSettingRule(
  description: string,
  setting: string,
  reference: string | null,
): Record<string, unknown> {
  const items = SCOUT_BUCKETS.map((b) =>
    `cloudstorage.projects.gcp-project-id.buckets.${b}.${setting}`
  );
  return scoutRule(
    description,
    "warning",
    "cloudstorage.projects.id.buckets.id",
    2,
    items,
    reference,
  );
}

function scoutRule(
  description: string,
  level: string,
  path: string,
  checked: number,
  items: string[],
  reference: string | null,
): Record<string, unknown> {
  return {
    checked_items: checked,
    compliance: reference === null
      ? null
      : [{ name: "CIS Google Cloud Platform Foundations", reference, version: "1.0.0" }],
    description,
    flagged_items: items.length,
    items,
    level,
    path,
  };
}

/** A bucket of {@linkcode SCOUTSUITE_GCP_SCRIPT}, under ScoutSuite's hash of its id. */
function scoutBucket(id: string, name: string, created: string): Record<string, unknown> {
  return {
    creation_date: created,
    id,
    location: "EU",
    logging_enabled: false,
    name,
    project_id: "gcp-project-id",
    project_number: 1111111111,
    storage_class: "standard",
    uniform_bucket_level_access: false,
    versioning_enabled: false,
  };
}

const SCOUT_BUCKETS = [
  "52fc025e81845686d3c9fe5a5dc4f5e7ae740064",
  "be0c682b7f6d9568fed2ec924eea5ebcfe083f3b",
];

/**
 * A ScoutSuite GCP results script: two Cloud Storage buckets ScoutSuite keys
 * by a hash, each flagged by two rules (no logging, CIS 5.3; no versioning),
 * two bucket rules that checked both and flagged none (CIS 5.1), and one
 * Cloud SQL rule that checked nothing (CIS 6.1). From DefectDojo's
 * `scout_suite/two_findings.js` at 1220f220 (the cloudstorage service and one
 * cloudsql rule; ACLs, rationale, references and dashboard fields left out).
 */
export const SCOUTSUITE_GCP_SCRIPT = `scoutsuite_results =
${
  JSON.stringify(
    {
      account_id: "gcp-project-id",
      project_id: "gcp-project-id",
      provider_code: "gcp",
      provider_name: "Google Cloud Platform",
      services: {
        cloudsql: {
          findings: {
            "cloudsql-instance-ssl-not-required": scoutRule(
              "Instance Not Requiring SSL for Incoming Connections",
              "warning",
              "cloudsql.projects.id.instances.id",
              0,
              [],
              "6.1",
            ),
          },
          projects: { "gcp-project-id": { instances: {}, instances_count: 0 } },
        },
        cloudstorage: {
          buckets_count: 2,
          findings: {
            "cloudstorage-bucket-allAuthenticatedUsers": scoutRule(
              'Bucket Accessible by "allAuthenticatedUsers"',
              "danger",
              "cloudstorage.projects.id.buckets.id",
              2,
              [],
              "5.1",
            ),
            "cloudstorage-bucket-allUsers": scoutRule(
              'Bucket Accessible by "allUsers"',
              "danger",
              "cloudstorage.projects.id.buckets.id",
              2,
              [],
              "5.1",
            ),
            "cloudstorage-bucket-no-logging": bucketSettingRule(
              "Bucket with Logging Disabled",
              "logging_enabled",
              "5.3",
            ),
            "cloudstorage-bucket-no-versioning": bucketSettingRule(
              "Bucket with Versioning Disabled",
              "versioning_enabled",
              null,
            ),
          },
          projects: {
            "gcp-project-id": {
              buckets: {
                [SCOUT_BUCKETS[0]!]: scoutBucket(
                  SCOUT_BUCKETS[0]!,
                  "gcp-project-id.appspot.com",
                  "2019-01-24 09:35:13.157000+00:00",
                ),
                [SCOUT_BUCKETS[1]!]: scoutBucket(
                  SCOUT_BUCKETS[1]!,
                  "staging.gcp-project-id.appspot.com",
                  "2019-01-24 09:35:13.151000+00:00",
                ),
              },
              buckets_count: 2,
            },
          },
        },
      },
    },
    null,
    2,
  )
};`;
