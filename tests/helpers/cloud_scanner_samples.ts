/**
 * Small scanner reports written from the public output formats of Checkov
 * (`-o json`), Trivy (`-f json`, schema 2), Prowler (`-M json-asff`) and
 * ScoutSuite (`scoutsuite_results_*.js`), for tests where the shared fixtures
 * have no sample of the kind. Values are invented; shapes follow the formats.
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
