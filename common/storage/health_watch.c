// SPDX-License-Identifier: MIT
/*
 * health_watch.c: a drive's health log around a window (see health_watch.h):
 * which controller answers for it, the two readings, and the JSON and text
 * the tools print of them; and the one writer of a health log's JSON, the
 * window's (health_watch_json) and a controller's now (health_now_json,
 * nvme_link_probe's).
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "health_watch.h"
#include "nbw.h"
#include "report.h"

/* "nvme0n1" or "nvme0c1n1": a namespace (or a multipath path to one) of a controller. */
static bool namespace_name(const char *s)
{
	const char *p = s + 4;

	if (strncmp(s, "nvme", 4) || !isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == 'c') {
		if (!isdigit((unsigned char)*++p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p++ != 'n' || !isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	return *p == '\0';
}

/* Namespaces under <sysfs_root>/class/nvme/<ctrl>; 0 when it cannot be listed. */
static unsigned count_namespaces(const char *sysfs_root, const char *ctrl)
{
	char dir[512];
	struct dirent *e;
	unsigned n = 0;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s/class/nvme/%s", sysfs_root, ctrl);
	dp = opendir(dir);
	if (!dp)
		return 0;
	while ((e = readdir(dp)))
		n += namespace_name(e->d_name);
	closedir(dp);
	return n;
}

void health_watch_init(struct health_watch *hw, const struct drive *d, const char *sysfs_root)
{
	memset(hw, 0, sizeof(*hw));
	if (d->kind != DRIVE_NVME || !d->ctrl[0]) {
		snprintf(hw->why, sizeof(hw->why), "not read: %s is %s", d->path,
			 d->kind == DRIVE_FILE ? "a regular file" : "not an NVMe namespace");
		return;
	}
	snprintf(hw->ctrl, sizeof(hw->ctrl), "%s", d->ctrl);
	snprintf(hw->ctrl_dev, sizeof(hw->ctrl_dev), "/dev/%s", d->ctrl);
	hw->namespaces = count_namespaces(sysfs_root, d->ctrl);
}

void health_watch_set(struct health_watch *hw, const struct health_log *before,
		      const struct health_log *after, const struct health_limits *lim,
		      const char *why)
{
	hw->have_before = before != NULL;
	hw->have_after = before && after;
	if (before)
		hw->before = *before;
	if (lim)
		hw->lim = *lim;
	if (why)
		snprintf(hw->why, sizeof(hw->why), "%s", why);
	if (hw->have_after) {
		hw->after = *after;
		health_compare(&hw->before, &hw->after, &hw->delta);
		hw->findings = health_findings(&hw->delta, &hw->after, &hw->lim);
	}
}

void health_watch_read(struct health_watch *hw, bool after)
{
	struct health_log log;
	char why[160];

	if (!hw->ctrl_dev[0] || (after && !hw->have_before))
		return;
	why[0] = '\0';
	if (!after) {
		hw->have_before = hw->have_after = false;
		if (health_read(hw->ctrl_dev, &log, &hw->lim, why, sizeof(why)))
			snprintf(hw->why, sizeof(hw->why), "%s", why);
		else
			health_watch_set(hw, &log, NULL, NULL, NULL);
		return;
	}
	if (health_read(hw->ctrl_dev, &log, NULL, why, sizeof(why)))
		snprintf(hw->why, sizeof(hw->why), "after the window: %s", why);
	else
		health_watch_set(hw, &hw->before, &log, NULL, NULL);
}

size_t health_watch_describe(const struct health_watch *hw, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (!hw->have_after)
		return 0;
	return health_describe(&hw->delta, &hw->after, &hw->lim, buf, len);
}

/* Kelvin as whole degrees Celsius, or null when not reported. */
static void json_celsius(struct report *r, const char *key, uint16_t kelvin)
{
	if (kelvin)
		report_i64(r, key, NULL, health_celsius(kelvin));
	else
		report_null(r, key, NULL);
}

static void json_warnings(struct report *r, const char *key, unsigned bits)
{
	unsigned bit;

	report_arr_begin(r, key);
	for (bit = 1; bit < 0x100; bit <<= 1)
		if (bits & bit)
			report_str(r, NULL, NULL, health_warning_name(bit));
	report_arr_end(r);
}

/* One reading: what the log says at one end of the window. */
static void json_reading(struct report *r, const char *key, const struct health_log *l)
{
	report_obj_begin(r, key);
	json_celsius(r, "temperature_c", l->composite_k);
	report_u64(r, "critical_warning", NULL, l->critical_warning);
	json_warnings(r, "warnings", l->critical_warning);
	report_u64(r, "available_spare_pct", NULL, l->spare_pct);
	report_u64(r, "spare_threshold_pct", NULL, l->spare_threshold_pct);
	report_u64(r, "percentage_used", NULL, l->used_pct);
	report_u64(r, "media_errors", NULL, l->media_errors);
	report_u64(r, "error_log_entries", NULL, l->error_log_entries);
	report_u64(r, "warning_temp_minutes", NULL, l->warning_temp_minutes);
	report_u64(r, "critical_temp_minutes", NULL, l->critical_temp_minutes);
	report_u64(r, "tmt1_transitions", NULL, l->tmt_transitions[0]);
	report_u64(r, "tmt2_transitions", NULL, l->tmt_transitions[1]);
	report_u64(r, "tmt1_seconds", NULL, l->tmt_seconds[0]);
	report_u64(r, "tmt2_seconds", NULL, l->tmt_seconds[1]);
	report_u64(r, "power_on_hours", NULL, l->power_on_hours);
	report_u64(r, "unsafe_shutdowns", NULL, l->unsafe_shutdowns);
	report_obj_end(r);
}

/* What moved over the window; a counter that went backwards is null, never 0. */
static void json_deltas(struct report *r, const struct health_watch *hw)
{
	unsigned c, bit;

	report_obj_begin(r, "deltas");
	for (c = 0; c < HC_COUNT; c++)
		if (hw->delta.backwards & 1u << c)
			report_null(r, health_counter_name(c), NULL);
		else
			report_u64(r, health_counter_name(c), NULL, hw->delta.moved[c]);
	json_warnings(r, "new_warnings", hw->delta.new_warnings);
	report_obj_end(r);
	report_arr_begin(r, "findings");
	for (bit = 1; bit <= HF_WORN; bit <<= 1)
		if (hw->findings & bit)
			report_str(r, NULL, NULL, health_finding_name(bit));
	report_arr_end(r);
}

void health_watch_json(struct report *r, const struct health_watch *hw)
{
	char line[320];

	report_obj_begin(r, "health");
	report_bool(r, "log_read", NULL, hw->have_before);
	report_str(r, "why", NULL, hw->why[0] ? hw->why : NULL);
	report_str(r, "controller", NULL, hw->ctrl[0] ? hw->ctrl : NULL);
	if (hw->namespaces)
		report_u64(r, "controller_namespaces", NULL, hw->namespaces);
	else
		report_null(r, "controller_namespaces", NULL);
	if (hw->have_before) {
		json_celsius(r, "warning_temp_c", hw->lim.warning_k);
		json_celsius(r, "critical_temp_c", hw->lim.critical_k);
		json_reading(r, "before", &hw->before);
	}
	if (hw->have_after) {
		json_reading(r, "after", &hw->after);
		json_deltas(r, hw);
		health_watch_describe(hw, line, sizeof(line));
		report_str(r, "summary", NULL, line);
	}
	report_obj_end(r);
}

void health_now_json(struct report *r, const struct health_log *log,
		     const struct health_limits *lim, const char *why)
{
	char line[240];

	report_obj_begin(r, "health");
	report_bool(r, "log_read", NULL, log != NULL);
	report_str(r, "why", NULL, log ? NULL : why);
	if (log) {
		json_celsius(r, "temperature_c", log->composite_k);
		json_celsius(r, "warning_temp_c", lim->warning_k);
		report_u64(r, "critical_warning", NULL, log->critical_warning);
		json_warnings(r, "warnings", log->critical_warning);
		report_u64(r, "available_spare_pct", NULL, log->spare_pct);
		report_u64(r, "percentage_used", NULL, log->used_pct);
		report_u64(r, "media_errors", NULL, log->media_errors);
		health_summary(log, lim, line, sizeof(line));
		report_str(r, "summary", "    health %s\n", line);
	}
	report_obj_end(r);
}

int health_watch_text(struct report *r, const struct health_watch *hw, const char *name,
		      const char *indent)
{
	/* The name, the reason and the controller may be a peer's word: printable only. */
	char line[320], safe[1024], why[4 * sizeof(hw->why)], ctrl[4 * sizeof(hw->ctrl)];

	nbw_printable(name, safe, sizeof(safe));
	nbw_printable(hw->ctrl, ctrl, sizeof(ctrl));
	if (hw->ctrl[0] && hw->why[0]) {
		report_text(r, "%s%s: health %s\n", indent, safe,
			    nbw_printable(hw->why, why, sizeof(why)));
		return 1;
	}
	if (!health_watch_describe(hw, line, sizeof(line)))
		return 0;
	report_text(r, "%s%s: %s", indent, safe, line);
	if (hw->namespaces > 1)
		report_text(r, " (controller %s: its log counts its %u namespaces together)", ctrl,
			    hw->namespaces);
	report_text(r, "\n");
	return 1;
}
