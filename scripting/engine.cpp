#include "scripting/engine.hpp"

#include <cstdlib>
#include <cstring>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

namespace uactor::scripting {

const char* to_string(item_kind k) noexcept {
  switch (k) {
    case item_kind::virtual_tag: return "virtual tag";
    case item_kind::calculation: return "calculation";
    case item_kind::alarm: return "alarm";
  }
  return "?";
}

const char* to_string(outcome o) noexcept {
  switch (o) {
    case outcome::ok: return "ok";
    case outcome::script_error: return "script error";
    case outcome::memory: return "memory limit";
    case outcome::instructions: return "instruction limit";
    case outcome::deadline: return "deadline";
    case outcome::not_loaded: return "not loaded";
  }
  return "?";
}

// The allocator's and the hook's bookkeeping; the state's extra space points at it.
struct engine::state {
  std::size_t used = 0;
  std::size_t limit = 0;
  bool hit_limit = false;
  std::uint64_t instructions = 0;
  std::uint64_t max_instructions = 0;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  outcome stopped = outcome::ok;
};

namespace {

constexpr int hook_every = 1000;  // instructions between two looks at the budget and the clock

engine::state* state_of(lua_State* L) { return *static_cast<engine::state**>(lua_getextraspace(L)); }

// Every byte the state holds passes here: past the limit the allocation fails, and Lua raises
// "not enough memory" (after an emergency collection) in the script that asked.
void* bounded_alloc(void* ud, void* ptr, std::size_t osize, std::size_t nsize) {
  auto* st = static_cast<engine::state*>(ud);
  const std::size_t old = ptr ? osize : 0;  // for a new block osize is the object's type, not a size
  if (nsize == 0) {
    st->used -= old;
    std::free(ptr);
    return nullptr;
  }
  if (nsize > old && st->used + (nsize - old) > st->limit) {
    st->hit_limit = true;
    return nullptr;
  }
  void* p = std::realloc(ptr, nsize);
  if (!p) return nullptr;
  st->used = st->used - old + nsize;
  return p;
}

// The second line of defence: a script that runs past its instruction budget or its deadline gets
// an error; from then on every instruction raises again, so that a script catching the error with
// pcall cannot keep running.
void count_hook(lua_State* L, lua_Debug*) {
  auto* st = state_of(L);
  st->instructions += hook_every;
  if (st->stopped == outcome::ok) {
    if (st->max_instructions && st->instructions > st->max_instructions) st->stopped = outcome::instructions;
    else if (st->deadline != std::chrono::steady_clock::time_point::max() &&
             std::chrono::steady_clock::now() >= st->deadline)
      st->stopped = outcome::deadline;
    if (st->stopped == outcome::ok) return;
    lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
  }
  luaL_error(L, "%s", st->stopped == outcome::instructions ? "instruction limit exceeded" : "deadline exceeded");
}

// load(chunk [, chunkname [, mode [, env]]]) for text only: bytecode can break the VM's invariants.
int text_only_load(lua_State* L) {
  std::size_t n = 0;
  const char* s = luaL_checklstring(L, 1, &n);
  const char* name = luaL_optstring(L, 2, "=(load)");
  const bool has_env = !lua_isnone(L, 4);
  if (luaL_loadbufferx(L, s, n, name, "t") != LUA_OK) {
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;  // nil, message
  }
  if (has_env) {
    lua_pushvalue(L, 4);
    if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
  }
  return 1;
}

script_value pop_result(lua_State* L, std::size_t max_string, std::string& error) {
  script_value v;
  switch (lua_type(L, -1)) {
    case LUA_TNIL: break;
    case LUA_TBOOLEAN: v = lua_toboolean(L, -1) != 0; break;
    case LUA_TNUMBER:
      if (lua_isinteger(L, -1)) v = static_cast<std::int64_t>(lua_tointeger(L, -1));
      else v = static_cast<double>(lua_tonumber(L, -1));
      break;
    case LUA_TSTRING: {
      std::size_t n = 0;
      const char* s = lua_tolstring(L, -1, &n);
      if (n > max_string) error = "returned a string of " + std::to_string(n) + " bytes (at most " +
                                  std::to_string(max_string) + ")";
      else v = std::string(s, n);
      break;
    }
    default: error = std::string("returned a ") + luaL_typename(L, -1) + " (expected nil, a boolean, a number or a string)";
  }
  lua_pop(L, 1);
  return v;
}

void push(lua_State* L, const script_value& v) {
  std::visit(
      [L](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) lua_pushnil(L);
        else if constexpr (std::is_same_v<T, bool>) lua_pushboolean(L, x);
        else if constexpr (std::is_same_v<T, std::int64_t>) lua_pushinteger(L, static_cast<lua_Integer>(x));
        else if constexpr (std::is_same_v<T, double>) lua_pushnumber(L, x);
        else lua_pushlstring(L, x.data(), x.size());
      },
      v);
}

}  // namespace

engine::engine(engine_limits limits) : limits_(limits), state_(std::make_unique<state>()) {
  state_->limit = limits.memory_bytes;
  state_->max_instructions = limits.max_instructions;
  L_ = lua_newstate(bounded_alloc, state_.get());
  if (!L_) throw std::runtime_error("scripts: a Lua state does not fit in the memory limit");
  *static_cast<state**>(lua_getextraspace(L_)) = state_.get();
  // Only these libraries (docs/scripts.md "Sandbox"): no io, os, package, debug, coroutine.
  const luaL_Reg libs[] = {{LUA_GNAME, luaopen_base}, {LUA_STRLIBNAME, luaopen_string},
                           {LUA_TABLIBNAME, luaopen_table}, {LUA_MATHLIBNAME, luaopen_math},
                           {LUA_UTF8LIBNAME, luaopen_utf8}};
  for (const auto& lib : libs) {
    luaL_requiref(L_, lib.name, lib.func, 1);
    lua_pop(L_, 1);
  }
  lua_pushglobaltable(L_);
  for (const char* name : {"dofile", "loadfile", "collectgarbage", "print", "require"}) {
    lua_pushnil(L_);
    lua_setfield(L_, -2, name);
  }
  lua_pushcfunction(L_, text_only_load);
  lua_setfield(L_, -2, "load");
  lua_getfield(L_, -1, "string");
  lua_pushnil(L_);
  lua_setfield(L_, -2, "dump");  // bytecode out is of no use without bytecode in
  lua_pop(L_, 2);
}

engine::~engine() {
  if (L_) lua_close(L_);
}

std::size_t engine::memory_used() const noexcept { return state_->used; }

std::string engine::load(const item_spec& spec) {
  item it;
  it.kind = spec.kind;
  it.input_names = spec.input_names;
  const std::string chunk_name = "=" + spec.name;
  // Its own globals (a calculation's state lives there), the shared libraries behind them.
  lua_newtable(L_);
  lua_newtable(L_);
  lua_pushglobaltable(L_);
  lua_setfield(L_, -2, "__index");
  lua_setmetatable(L_, -2);
  // A virtual tag or an alarm is an expression, or a chunk with a return: the expression first.
  int rc = LUA_ERRSYNTAX;
  std::string expression_error;
  if (spec.kind != item_kind::calculation) {
    const std::string as_expression = "return " + spec.source;
    rc = luaL_loadbufferx(L_, as_expression.data(), as_expression.size(), chunk_name.c_str(), "t");
    if (rc != LUA_OK) {
      expression_error = lua_tostring(L_, -1) ? lua_tostring(L_, -1) : "?";
      lua_pop(L_, 1);
    }
  }
  if (rc != LUA_OK) {
    rc = luaL_loadbufferx(L_, spec.source.data(), spec.source.size(), chunk_name.c_str(), "t");
    if (rc != LUA_OK) {
      std::string error = lua_tostring(L_, -1) ? lua_tostring(L_, -1) : "?";
      lua_pop(L_, 2);  // the message, the env
      if (!expression_error.empty() && spec.source.find("return") == std::string::npos) error = expression_error;
      items_.push_back(std::move(it));
      if (rc == LUA_ERRMEM) return spec.name + ": does not fit in the memory limit";
      return spec.name + ": syntax error: " + error;
    }
  }
  lua_pushvalue(L_, -2);
  lua_setupvalue(L_, -2, 1);  // _ENV
  it.function = luaL_ref(L_, LUA_REGISTRYINDEX);
  it.env = luaL_ref(L_, LUA_REGISTRYINDEX);
  items_.push_back(std::move(it));
  return {};
}

eval_result engine::evaluate(std::size_t index, std::span<const script_value> inputs, double now_seconds, bool active,
                             std::chrono::steady_clock::time_point deadline) {
  eval_result r;
  if (index >= items_.size() || items_[index].function == LUA_NOREF) {
    r.how = outcome::not_loaded;
    r.error = "not loaded";
    return r;
  }
  const item& it = items_[index];
  lua_rawgeti(L_, LUA_REGISTRYINDEX, it.env);
  const std::size_t n = std::min(inputs.size(), it.input_names.size());
  for (std::size_t i = 0; i < n; ++i) {
    push(L_, inputs[i]);
    lua_setfield(L_, -2, it.input_names[i].c_str());
  }
  lua_pushnumber(L_, now_seconds);
  lua_setfield(L_, -2, "now");
  if (it.kind == item_kind::alarm) {
    lua_pushboolean(L_, active);
    lua_setfield(L_, -2, "active");
  }
  lua_pop(L_, 1);
  lua_rawgeti(L_, LUA_REGISTRYINDEX, it.function);
  state_->instructions = 0;
  state_->stopped = outcome::ok;
  state_->hit_limit = false;
  state_->deadline = deadline;
  lua_sethook(L_, count_hook, LUA_MASKCOUNT, hook_every);
  const int rc = lua_pcall(L_, 0, 1, 0);
  if (rc == LUA_OK) {
    r.value = pop_result(L_, limits_.max_string_result, r.error);
    if (!r.error.empty()) r.how = outcome::script_error;
    return r;
  }
  if (state_->stopped != outcome::ok) r.how = state_->stopped;
  else if (rc == LUA_ERRMEM || state_->hit_limit) r.how = outcome::memory;
  else r.how = outcome::script_error;
  const char* msg = lua_tostring(L_, -1);
  r.error = msg ? msg : "(an error object that is not a string)";
  if (r.how == outcome::memory) r.error = "memory limit (" + std::to_string(limits_.memory_bytes) + " bytes) reached: " + r.error;
  lua_pop(L_, 1);
  if (r.how == outcome::memory) lua_gc(L_, LUA_GCCOLLECT);  // what the bomb held goes back now
  return r;
}

}  // namespace uactor::scripting
