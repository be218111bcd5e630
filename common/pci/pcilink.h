/* SPDX-License-Identifier: MIT */
/*
 * pcilink.h: PCIe link decoding, ceilings and verdicts, shared by
 * nvme_link_probe and the bandwidth tools' "link ceiling" column.
 *
 * This header owns the pure part, in three files: the link model (speed
 * codes, encodings, the ceilings, names; pcilink.c), the decoding of raw
 * configuration bytes (pcilink_decode.c), and the judgement of a link from
 * both of its ends and of a path, with its what-ifs (pcilink_judge.c). Where
 * the bytes come from (libpci: live sysfs, a captured sysfs tree, an
 * `lspci -xxx` dump) is pcitree.h.
 *
 * Ceiling model (documented in nvme_link_probe(1)):
 *	raw    = GT/s x lanes x encoding / 8 bits  (GB/s = 10^9 bytes/s)
 *		 encoding 8b/10b at 2.5 and 5 GT/s, 128b/130b at 8..32 GT/s,
 *		 Flit (236 TLP bytes of every 256) at 64 GT/s and above
 *	usable = raw x MPS / (MPS + 24)
 *		 24 bytes of TLP overhead per packet: 4-dword header (16),
 *		 sequence number and framing (4), LCRC (4)
 *	A link whose MPS (DevCtl, the lower of both ends) is below the largest
 *	both ends support (DevCap) is a payload finding: its usable ceiling at
 *	the MPS set against the one at the MPS supported. An endpoint's MRRS
 *	below the link's MPS is one too: its reads' completions carry at most
 *	MRRS bytes, so reads are usable at raw x MRRS / (MRRS + 24).
 */
#ifndef NBW_PCILINK_H
#define NBW_PCILINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nbw.h"

/* Bytes of overhead per TLP in the usable-ceiling model. */
#define PCIE_TLP_OVERHEAD 24

/* GT/s of a link speed code (1 = 2.5 ... 6 = 64, 7 = 128); 0 if unknown. */
double pcie_speed_gts(unsigned code);
/* The code of a speed in GT/s (2.5 -> 1, 16 -> 4), also its generation; 0 if not a PCIe speed. */
unsigned pcie_speed_code(double gts);
/* Payload fraction of the line encoding at gts: 0.8, 128/130 or 236/256. */
double pcie_encoding_efficiency(double gts);
/* Raw GB/s of a link; NAN if speed or width is unknown (0). */
double pcie_raw_gb_per_s(double gts, unsigned width);
/* Usable GB/s of a link at max payload size mps; NAN if anything is unknown. */
double pcie_usable_gb_per_s(double gts, unsigned width, unsigned mps);
/* "8 GT/s" style text of a speed ("2.5", "8", "?" for 0) into buf. */
const char *pcie_speed_str(double gts, char *buf, size_t len);

/*
 * What a function is in the PCIe hierarchy (Device/Port Type of the
 * capability), and its JSON/text name.
 */
/* clang-format off */
#define PCIE_ROLES(X) \
	X(PCIE_ROLE_UNKNOWN, "unknown") \
	X(PCIE_ROLE_PCI, "pci") /* no PCI Express capability: conventional PCI */ \
	X(PCIE_ROLE_ENDPOINT, "endpoint") \
	X(PCIE_ROLE_LEGACY_ENDPOINT, "legacy_endpoint") \
	X(PCIE_ROLE_RC_ENDPOINT, "rc_integrated_endpoint") /* root-complex integrated: no link */ \
	X(PCIE_ROLE_RC_EVENT, "rc_event_collector") \
	X(PCIE_ROLE_ROOT_PORT, "root_port") \
	X(PCIE_ROLE_SWITCH_UP, "switch_upstream") \
	X(PCIE_ROLE_SWITCH_DOWN, "switch_downstream") \
	X(PCIE_ROLE_PCIE_TO_PCI, "pcie_to_pci_bridge") \
	X(PCIE_ROLE_PCI_TO_PCIE, "pci_to_pcie_bridge")
/* clang-format on */
enum pcie_role { PCIE_ROLES(NBW_ENUM_ID) };

/* JSON/text name of a role: "endpoint", "root_port", "switch_upstream", ... */
const char *pcie_role_name(enum pcie_role role);
/* True for the ports that sit above a link (root port, switch downstream). */
bool pcie_role_is_downstream_port(enum pcie_role role);

/* Fields of struct pcie_fn that were read (bit set) or are unknown. */
enum {
	PCIE_K_ROLE = 1 << 0,
	PCIE_K_LNKCAP = 1 << 1,	 /* cap_speed, cap_width */
	PCIE_K_LNKSTA = 1 << 2,	 /* speed, width */
	PCIE_K_LNKCAP2 = 1 << 3, /* speeds vector (may be present and empty) */
	PCIE_K_LNKCTL2 = 1 << 4, /* target_speed */
	PCIE_K_MPS = 1 << 5,
	PCIE_K_MRRS = 1 << 6,
	PCIE_K_DLL = 1 << 7,	 /* dll_active (only where the port reports it) */
	PCIE_K_MAX = 1 << 8,	 /* max_speed, max_width (from LnkCap/LnkCap2 or sysfs) */
	PCIE_K_SLOT = 1 << 9,	 /* slot_implemented, slot_number (capability flags, SltCap) */
	PCIE_K_EXTCFG = 1 << 10, /* extended space read: acs_pos 0 means no ACS capability */
};

/* ACS Capability and Control bits (PCIe Base Specification, 7.7.8). */
enum {
	PCIE_ACS_SV = 1 << 0, /* Source Validation */
	PCIE_ACS_TB = 1 << 1, /* Translation Blocking */
	PCIE_ACS_RR = 1 << 2, /* P2P Request Redirect */
	PCIE_ACS_CR = 1 << 3, /* P2P Completion Redirect */
	PCIE_ACS_UF = 1 << 4, /* Upstream Forwarding */
	PCIE_ACS_EC = 1 << 5, /* P2P Egress Control */
	PCIE_ACS_DT = 1 << 6, /* Direct Translated P2P */
};
/* The bits that send peer-to-peer requests or completions up instead of across. */
#define PCIE_ACS_REDIRECTS (PCIE_ACS_RR | PCIE_ACS_CR | PCIE_ACS_EC)

/* lspci's names of the ACS bits that are set in bits ("ReqRedir CmpltRedir"), "" none. */
const char *pcie_acs_names(unsigned bits, char *buf, size_t len);

/* Comma-separated names of the fields in mask (e.g. "LnkCtl2 target speed, MPS"). */
const char *pcie_known_names(unsigned mask, char *buf, size_t len);

/* One PCI function as far as its link is concerned. Speeds in GT/s, 0 = unknown. */
struct pcie_fn {
	char bdf[16]; /* 0000:01:00.0 */
	int domain, bus, dev, func;
	uint16_t vendor, device;
	uint32_t class_code;	    /* class << 16 | subclass << 8 | prog-if */
	bool bridge;		    /* type 1 header */
	int secondary, subordinate; /* bridges: bus range below, -1 unknown */
	enum pcie_role role;
	unsigned cap_version;
	unsigned known;		/* PCIE_K_* */
	double cap_speed;	/* LnkCap Max Link Speed */
	unsigned cap_width;	/* LnkCap Maximum Link Width */
	unsigned speeds_vector; /* LnkCap2 Supported Link Speeds, bit 0 = 2.5 GT/s */
	double max_speed;	/* highest of LnkCap2 when present, else LnkCap */
	unsigned max_width;
	double target_speed;	     /* LnkCtl2 Target Link Speed */
	double speed;		     /* LnkSta Current Link Speed */
	unsigned width;		     /* LnkSta Negotiated Link Width */
	bool slot_implemented;	     /* PCIe capability Flags: Slot Implemented (ports only) */
	unsigned slot_number;	     /* SltCap Physical Slot Number, when slot_implemented */
	bool dll_reporting;	     /* LnkCap: Data Link Layer Link Active reporting */
	bool dll_active;	     /* LnkSta: Data Link Layer Link Active */
	bool training;		     /* LnkSta: Link Training */
	bool autonomous_bw;	     /* LnkSta: Link Autonomous Bandwidth Status */
	bool hw_autonomous_disabled; /* LnkCtl2: Hardware Autonomous Speed Disable */
	unsigned mps, mrrs;	     /* DevCtl, bytes */
	unsigned mps_supported;	     /* DevCap, bytes */
	int numa_node;		     /* -1 unknown */
	char driver[32];	     /* "" unknown or none */
	bool is_vf;
	char pf_bdf[16]; /* a VF's physical function */
	int sriov_pos;	 /* SR-IOV extended capability offset, 0 if none */
	unsigned sriov_num_vfs, sriov_offset, sriov_stride;
	int acs_pos;		   /* ACS extended capability offset, 0 if none */
	unsigned acs_cap, acs_ctl; /* its Capability and Control registers (PCIE_ACS_*) */
	int parent;		   /* index of the upstream bridge in its tree, -1 = none */
};

/* Fill domain/bus/dev/func and bdf; other fields to "unknown". */
void pcie_fn_init(struct pcie_fn *f, int domain, int bus, int dev, int func);

/*
 * Decode configuration space: the header (IDs, class, bridge bus numbers),
 * the PCI Express capability when found in the capability list, and the
 * SR-IOV and ACS capabilities when the extended space is present. len is how many
 * bytes of cfg are valid (64 without root, 256, or 4096). Returns 0, or
 * -ENODATA when even the header is missing.
 */
int pcie_decode_config(const uint8_t *cfg, size_t len, struct pcie_fn *f);

/* A link's verdict, and its JSON/text name. */
/* clang-format off */
#define PCIE_VERDICTS(X) \
	X(PCIE_OK, "ok") \
	X(PCIE_DOWNGRADED, "downgraded") \
	X(PCIE_MAYBE_IDLE, "maybe_idle") /* below its maximum, but a NIC/GPU may be idling */ \
	X(PCIE_LINK_DOWN, "link_down") \
	X(PCIE_NO_LINK, "no_link") /* no PCIe link of its own (fabric, software, integrated) */ \
	X(PCIE_UNKNOWN, "unknown")
/* clang-format on */
enum pcie_verdict { PCIE_VERDICTS(NBW_ENUM_ID) };

enum pcie_limit {
	PCIE_LIMIT_NONE,
	PCIE_LIMIT_DEVICE,
	PCIE_LIMIT_PORT,
	PCIE_LIMIT_TRAINING,
	PCIE_LIMIT_PATH,
};

const char *pcie_verdict_name(enum pcie_verdict v);
const char *pcie_limit_name(enum pcie_limit l);

/*
 * Reasons are sized for their longest sentence, never cut: a path's reason is a
 * sentence about a hop further up followed by that hop's own link reason.
 */
#define PCIE_LINK_REASON_LEN 256
#define PCIE_PATH_REASON_LEN (PCIE_LINK_REASON_LEN + 256)
#define PCIE_PAYLOAD_LEN 160

/* One link judged from both of its ends. */
struct pcie_link {
	const struct pcie_fn *port; /* upstream end: root port or switch downstream port */
	const struct pcie_fn *dev;  /* downstream end: endpoint or switch upstream port */
	double speed;		    /* trained, GT/s */
	unsigned width;
	double exp_speed;   /* min(both maxima, the port's target) */
	unsigned exp_width; /* min(both maxima) */
	unsigned mps;	    /* min of both ends' MPS, 0 unknown */
	double raw, usable; /* GB/s at the trained speed/width; NAN unknown */
	/* Payload: the largest MPS both ends support (DevCap) against the one set (DevCtl). */
	unsigned mps_supported;	 /* min of both ends' DevCap MPS, 0 unknown */
	unsigned mrrs;		 /* an endpoint's MRRS (its read requests), 0 unknown or not one */
	double usable_supported; /* usable at mps_supported; NAN unknown */
	bool mps_short;		 /* mps is below mps_supported */
	bool mrrs_short;	 /* the endpoint's mrrs is below mps: reads pay more overhead */
	double usable_reads;	 /* usable at mrrs when mrrs_short; NAN otherwise */
	char payload[PCIE_PAYLOAD_LEN]; /* the finding in words, "" none */
	enum pcie_verdict verdict;
	enum pcie_limit limited_by;
	unsigned missing; /* PCIE_K_* needed but unknown at either end */
	char reason[PCIE_LINK_REASON_LEN];
};

/*
 * Judge the link between port (above) and dev (below). who names the
 * device in the reason ("drive", "NIC", "switch"). may_idle: the device
 * class may lower its link when idle (NIC, GPU), so a speed below the
 * maximum with autonomous speed changes allowed is PCIE_MAYBE_IDLE.
 */
void pcie_judge_link(const struct pcie_fn *port, const struct pcie_fn *dev, const char *who,
		     bool may_idle, struct pcie_link *l);

#define PCIE_MAX_HOPS 16

/* A device's path to its root port and the judgement of every link on it. */
struct pcie_path {
	const struct pcie_fn *hop[PCIE_MAX_HOPS]; /* [0] the device (a VF's PF) ... root port */
	int nhops;
	struct pcie_link link[PCIE_MAX_HOPS]; /* [0] the device's own link, upward */
	int nlinks;
	int bottleneck;	    /* index into link[] of the narrowest, -1 */
	double raw, usable; /* of the narrowest link; NAN unknown */
	enum pcie_verdict verdict;
	enum pcie_limit limited_by;
	char reason[PCIE_PATH_REASON_LEN];
};

/*
 * Judge a path: hop[0..nhops) from the device up to the root port must be
 * filled in. Links are found between each port and the function below it
 * (a switch's upstream-to-downstream step is internal and has no link).
 */
void pcie_judge_path(struct pcie_path *p, const char *who, bool may_idle);

/*
 * What the path would carry if the device's own link ran at dev_speed x
 * dev_width against its port, every link further up as it is (trained). The
 * own link trains at the lower of both ends' speeds and widths. The port
 * runs its maximum, capped by its LnkCtl2 target speed; fix_slot lets it run
 * the device's speed instead (its width stays: lanes are wiring).
 * MPS is that of the own link today. Ranked by usable GB/s when every link's
 * is known, else by raw.
 */
struct pcie_what_if {
	double raw, usable; /* NAN unknown */
	double port_speed;  /* the port's end in this case, GT/s */
	unsigned port_width;
	double speed; /* own link in this case, GT/s */
	unsigned width;
	int bottleneck;	    /* index into path->link[] of the narrowest, -1 unknown */
	bool slot_binds;    /* the own link is narrowest and the port's end limits it */
	bool ranked_usable; /* compared by usable (else raw) */
};

/*
 * Fill w for the case above. dev_speed 0 / dev_width 0: the device's own
 * maximum. Returns 0, or -ENODATA when the path has no link or the port's or
 * device's maximum is unknown.
 */
int pcie_what_if(const struct pcie_path *p, double dev_speed, unsigned dev_width, bool fix_slot,
		 struct pcie_what_if *w);

/*
 * The slot ceiling: what the path gives a device of unlimited capability,
 * the port's end of the own link at its maximum (LnkCap/LnkCap2 speed, LnkCap
 * width; the target speed is a setting, not the slot), links further up as
 * trained. Returns as pcie_what_if().
 */
int pcie_slot_ceiling(const struct pcie_path *p, struct pcie_what_if *w);

/* Physical Slot Number of a Slot Capabilities register (bits 31:19). */
unsigned pcie_sltcap_slot_number(uint32_t sltcap);

/* True for classes that lower their link when idle: network, display, accelerators. */
bool pcie_class_may_idle(uint32_t class_code);

/* Normalise "01:00.0" / "0000:01:00.0" into out (16 bytes). -EINVAL if not a BDF. */
int pcie_bdf_normalise(const char *s, char out[16]);

/* A PCIe link width (1 2 4 8 12 16 32) from text. 0, -EINVAL or -ERANGE. */
int pcie_parse_width(const char *s, unsigned *out);

#endif
