package platform.s3

import rego.v1

# Buckets whose ACL makes them readable by anyone.
deny_public_acl contains reason if {
	resource := input.plan.resource_changes[_]
	resource.type == "aws_s3_bucket_acl"
	resource.change.after.acl in {"public-read", "public-read-write"}
	reason := sprintf("%s: bucket ACL %q makes the bucket public", [resource.address, resource.change.after.acl])
}
