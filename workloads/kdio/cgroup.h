// cgroup v2 placement of a job process: `cgroup=NAME` joins NAME under the cgroup2 mount
// (created if needed); kdio's `cgroup_io_max=LINE` additionally writes "MAJ:MIN LINE" to the
// group's io.max for the device holding the job's first file, in a group of the job's own when
// no name is given.
#pragma once

#include <string>

#include "job.h"

namespace kdio {

// Where cgroup v2 is mounted (from /proc/self/mountinfo); fails with advice when it is not.
std::string cgroup2_mount();

// The group a job's process should join, relative to the mount; "" when the job has none.
// auto_name is used for cgroup_io_max without cgroup=NAME.
std::string job_cgroup(const Job& job, const std::string& auto_name);

// "MAJ:MIN" of the whole disk under path (a partition is mapped to its disk, as io.max
// requires).
std::string whole_disk_of(const std::string& path);

// Creates the group, applies io.max, and moves the calling process into it.
void enter_job_cgroup(const Job& job, const std::string& group);

// Removes a group kdio created (after its processes exited); errors are ignored.
void remove_cgroup(const std::string& group);

}  // namespace kdio
