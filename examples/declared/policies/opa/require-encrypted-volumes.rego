package platform.ebs

import rego.v1

deny_unencrypted contains reason if {
	resource := input.plan.resource_changes[_]
	resource.type == "aws_ebs_volume"
	not resource.change.after.encrypted
	reason := sprintf("%s: EBS volumes must be encrypted", [resource.address])
}
