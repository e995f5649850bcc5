// DNS names between their wire form (RFC 1035 §3.1: length-prefixed labels, §4.1.4 compression
// pointers) and the text form of dns_message.hpp (labels joined by '.', '.' and '\' inside a label
// escaped with '\'). Case-insensitive comparison as RFC 1035 §2.3.3 asks (ASCII only).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/mdns/dns_message.hpp"

namespace uactor::ua::dns {

// Splits a text name into its labels (unescaped). False when a label is empty or longer than 63,
// the name longer than 255 on the wire, or an escape dangles.
bool split_name(std::string_view text, std::vector<std::string>& labels);
// The text form of one label: '.' and '\' escaped.
std::string escape_label(std::string_view label);
// The first label of a text name, unescaped (an instance name's <Instance> part, RFC 6763 §4.1);
// the rest after it (its <Service>.<Domain>), as text.
std::string first_label(std::string_view text);
std::string_view after_first_label(std::string_view text);
bool same_name(std::string_view a, std::string_view b) noexcept;

// Reads the name at `pos` of `msg` (the whole message, for pointers), leaves `pos` after it (after
// its first pointer when compressed). Pointers only point backwards, at most `max_hops` of them;
// labels of type 01 or 10 (RFC 6891 §5) are refused. False with `e` (the offset where it failed).
bool read_name(std::span<const std::uint8_t> msg, std::size_t& pos, std::size_t max_hops, std::string& out,
               error& e);

}  // namespace uactor::ua::dns
