// The Runtime: persistent device threads, serialised and concurrent calls, failure propagation.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "shard/kernels/matmul.h"
#include "shard/shard.h"

namespace shard {
namespace {

// A device thread that cannot be started (here: no address space left for its stack) is an
// ArgumentError the caller can catch; it used to leave joinable threads behind and abort.
// Address-space limits do not mix with the sanitizers' shadow memory, so their builds leave it out.
// (g++ defines __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__; clang answers __has_feature.)
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SHARD_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SHARD_TEST_SANITIZED 1
#endif
#endif
#if !defined(SHARD_TEST_SANITIZED)
// Exits 0 when a runtime too big for 512 MiB of address space throws the error it should.
[[noreturn]] void start_runtime_without_address_space() {
  rlimit limit{};
  limit.rlim_cur = limit.rlim_max = std::size_t{512} << 20;
  setrlimit(RLIMIT_AS, &limit);
  try {
    Runtime rt{2000};  // 2000 stacks of 8 MiB
    std::_Exit(1);
  } catch (const ArgumentError& e) {
    std::_Exit(std::string(e.what()).find("could not start device thread") != std::string::npos ? 0 : 2);
  }
}

TEST(Runtime, AThreadThatCannotStartIsAnError) {
  EXPECT_EXIT(start_runtime_without_address_space(), ::testing::ExitedWithCode(0), "");
}
#endif

// Sets one environment variable for the scope, restoring what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// Several ranks under an MPI launcher would each run whole independent copies (no MPI backend
// yet), so the runtime refuses to start there unless the user asks for independent copies.
TEST(Runtime, RefusesToStartInOneOfSeveralMpiRanks) {
  {
    ScopedEnv ranks("OMPI_COMM_WORLD_SIZE", "4");
    try {
      Runtime rt{2};
      FAIL() << "expected UnsupportedError";
    } catch (const UnsupportedError& e) {
      EXPECT_NE(std::string(e.what()).find("one of 4 ranks started by an MPI launcher (OMPI_COMM_WORLD_SIZE=4)"),
                std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("SHARD_INDEPENDENT_RANKS=1"), std::string::npos) << e.what();
    }
    ScopedEnv allow("SHARD_INDEPENDENT_RANKS", "1");
    Runtime rt{2};
    EXPECT_EQ(rt.num_devices(), 2);
  }
  {
    ScopedEnv ranks("PMI_SIZE", "2");
    EXPECT_THROW(Runtime{1}, UnsupportedError);
  }
  // One rank, or a variable that is not a count, is a plain single-process run.
  ScopedEnv one("OMPI_COMM_WORLD_SIZE", "1");
  ScopedEnv junk("PMI_SIZE", "two");
  Runtime rt{2};
  EXPECT_EQ(rt.num_devices(), 2);
}

TEST(Runtime, RunsOnEveryDeviceOfTheMesh) {
  Runtime rt{8};
  const Mesh mesh({{"dp", 4}, {"tp", 2}});
  std::atomic<int> mask{0};
  rt.run(mesh, [&](Device& dev) {
    mask.fetch_or(1 << dev.id());
    EXPECT_EQ(dev.axis_index("tp"), dev.id() % 2);
    EXPECT_EQ(dev.axis_size({"dp", "tp"}), 8);
  });
  EXPECT_EQ(mask.load(), 0xFF);
}

TEST(Runtime, ReusesTheSameThreads) {
  Runtime rt{4};
  const Mesh mesh({{"x", 4}});
  std::vector<std::thread::id> first(4), second(4);
  rt.run(mesh, [&](Device& dev) { first[dev.id()] = std::this_thread::get_id(); });
  rt.run(mesh, [&](Device& dev) { second[dev.id()] = std::this_thread::get_id(); });
  EXPECT_EQ(first, second);
  EXPECT_EQ(std::set<std::thread::id>(first.begin(), first.end()).size(), 4u);
}

TEST(Runtime, OmpThreadsPerDevice) {
  EXPECT_EQ(Runtime(8, 2).omp_threads_per_device(), 1);
  if (std::getenv("OMP_NUM_THREADS") == nullptr)
    EXPECT_EQ(Runtime(2, 16).omp_threads_per_device(), 8);
  else  // an explicit OMP_NUM_THREADS caps it (TSan runs set 1)
    EXPECT_LE(Runtime(2, 16).omp_threads_per_device(), 8);
}

TEST(Runtime, ACoreCountIsZeroOrMore) {
  EXPECT_THROW(Runtime(2, -1), ArgumentError);
  EXPECT_THROW(Runtime(0), ArgumentError);
}

TEST(Runtime, SubMeshRunsOnlyItsDevices) {
  Runtime rt{8};
  const Mesh student({{"dp", 4}}, 4);
  std::atomic<int> mask{0};
  rt.run(student, [&](Device& dev) {
    mask.fetch_or(1 << dev.id());
    EXPECT_EQ(dev.axis_index("dp"), dev.id() - 4);
  });
  EXPECT_EQ(mask.load(), 0xF0);
}

TEST(Runtime, DisjointCallsRunAtTheSameTime) {
  Runtime rt{8};
  const Mesh teacher({{"tp", 4}}, 0);
  const Mesh student({{"dp", 4}}, 4);
  // Each call waits until the other has started: possible only if they overlap.
  std::atomic<int> started{0};
  auto body = [&](Device& dev) {
    if (dev.axis_index(dev.mesh().axes()[0].name) == 0) {
      started.fetch_add(1);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (started.load() < 2 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    }
  };
  std::thread other([&] { rt.run(student, body); });
  rt.run(teacher, body);
  other.join();
  EXPECT_EQ(started.load(), 2);
}

TEST(Runtime, CollectivesOnTwoSubMeshesAtOnce) {
  // The seeds' distillation: a teacher on devices 0..4 and a student on 4..8, each running
  // collectives in its own call, concurrently.
  Runtime rt{8};
  const Mesh teacher({{"tp", 2}, {"x", 2}}, 0);
  const Mesh student({{"dp", 4}}, 4);
  std::atomic<int> teacher_ok{0}, student_ok{0};
  std::thread other([&] {
    for (int round = 0; round < 50; ++round)
      rt.run(student, [&](Device& dev) {
        Tensor x(DType::i32, {3});
        x.as<std::int32_t>()[1] = dev.axis_index("dp");
        const Tensor y = all_gather(dev, psum(dev, x, "dp"), "dp", 0, true);
        if (y.dim(0) == 12 && y.as<std::int32_t>()[1] == 6 && y.as<std::int32_t>()[10] == 6) student_ok.fetch_add(1);
      });
  });
  for (int round = 0; round < 50; ++round)
    rt.run(teacher, [&](Device& dev) {
      Tensor x(DType::i32, {2});
      x.as<std::int32_t>()[0] = dev.id();
      const Tensor y = ppermute_shift(dev, x, {"x", "tp"}, 1);  // rank = x*2 + tp
      const int rank = dev.axis_index({"x", "tp"});
      const int source_rank = (rank + 3) % 4, source = (source_rank % 2) * 2 + source_rank / 2;
      if (y.as<std::int32_t>()[0] == source) teacher_ok.fetch_add(1);
    });
  other.join();
  EXPECT_EQ(teacher_ok.load(), 50 * 4);
  EXPECT_EQ(student_ok.load(), 50 * 4);
}

TEST(Runtime, OverlappingCallsAreSerialised) {
  Runtime rt{4};
  const Mesh a({{"x", 3}}, 0);
  const Mesh b({{"x", 2}}, 2);
  std::atomic<int> inside{0}, max_inside{0};
  auto body = [&](Device&) {
    const int now = inside.fetch_add(1) + 1;
    int m = max_inside.load();
    while (now > m && !max_inside.compare_exchange_weak(m, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    inside.fetch_sub(1);
  };
  std::thread t1([&] {
    for (int i = 0; i < 20; ++i) rt.run(a, body);
  });
  for (int i = 0; i < 20; ++i) rt.run(b, body);
  t1.join();
  EXPECT_LE(max_inside.load(), 3);  // never a's 3 devices and b's 2 at once
}

TEST(Runtime, RejectsMeshesBeyondItsDevices) {
  Runtime rt{4};
  EXPECT_THROW(rt.run(Mesh({{"x", 8}}), [](Device&) {}), ArgumentError);
}

TEST(Runtime, NestedRunIsAnError) {
  Runtime rt{2};
  const Mesh m({{"x", 2}});
  EXPECT_THROW(rt.run(m, [&](Device&) { rt.run(m, [](Device&) {}); }), DeviceError);
}

TEST(RuntimeFailure, ErrorReachesTheCallerWithDeviceAndMessage) {
  Runtime rt{4};
  const Mesh m({{"x", 4}});
  try {
    rt.run(m, [](Device& dev) {
      if (dev.id() == 2) throw std::runtime_error("boom");
    });
    FAIL() << "expected DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_EQ(e.device(), 2);
    EXPECT_EQ(e.message(), "boom");
  }
}

TEST(RuntimeFailure, PeersBlockedInACollectiveAreWoken) {
  Runtime rt{8};
  const Mesh m({{"dp", 4}, {"tp", 2}});
  for (int round = 0; round < 20; ++round) {
    const int victim = round % 8;
    try {
      rt.run(m, [&](Device& dev) {
        Tensor x(DType::f32, {1024});
        if (dev.id() == victim) throw ShapeError("device failed before the collective");
        Tensor y = psum(dev, x, {"dp", "tp"});  // would wait forever for the victim
        Tensor z = all_gather(dev, y, {"tp"});
      });
      FAIL() << "expected DeviceError";
    } catch (const DeviceError& e) {
      EXPECT_EQ(e.device(), victim);
      EXPECT_EQ(e.message(), "device failed before the collective");
    }
  }
  // The runtime is still usable afterwards.
  std::atomic<int> ok{0};
  rt.run(m, [&](Device& dev) {
    Tensor x(DType::i32, {4});
    x.as<std::int32_t>()[0] = 1;
    Tensor y = psum(dev, x, {"dp", "tp"});
    if (y.as<std::int32_t>()[0] == 8) ok.fetch_add(1);
  });
  EXPECT_EQ(ok.load(), 8);
}

TEST(RuntimeFailure, FailureInsideOneGroupUnwindsTheOthers) {
  Runtime rt{8};
  const Mesh m({{"dp", 4}, {"tp", 2}});
  // Device 3 fails in the middle of a sequence of collectives on small groups, while the others
  // are at various points; with large arrays the victim's peers are mid-copy from each other.
  for (int round = 0; round < 10; ++round) {
    EXPECT_THROW(rt.run(m,
                        [&](Device& dev) {
                          Tensor x(DType::f32, {64 * 1024});
                          for (int i = 0; i < 6; ++i) {
                            x = psum(dev, x, {"tp"});
                            if (dev.id() == 3 && i == round % 6) throw std::logic_error("late failure");
                            x = ppermute_shift(dev, x, {"dp"}, 1);
                          }
                        }),
                 DeviceError);
  }
}

TEST(Runtime, CurrentDeviceIsTheDeviceOfTheCallingWorker) {
  Runtime rt{4};
  const Mesh m({{"x", 2}}, 2);  // devices 2 and 3
  std::vector<const Device*> seen(4, nullptr);
  rt.run(m, [&](Device& dev) {
    seen[dev.id()] = current_device();
    EXPECT_EQ(&current_device()->kernels(), &dev.kernels());
  });
  EXPECT_EQ(current_device(), nullptr);
  EXPECT_EQ(seen[0], nullptr);
  for (int d = 2; d < 4; ++d) {
    ASSERT_NE(seen[d], nullptr);
    EXPECT_EQ(seen[d]->id(), d);
  }
}

TEST(RuntimeFailure, MismatchedCollectivesAreAnErrorNotAHang) {
  Runtime rt{2};
  const Mesh m({{"x", 2}});
  EXPECT_THROW(rt.run(m,
                      [](Device& dev) {
                        Tensor x(DType::f32, {dev.id() == 0 ? 4 : 8});
                        psum(dev, x, "x");
                      }),
               DeviceError);
}

// Devices in different groups at the same point, found late: devices 0 and 1 psum over b four
// times and then over a, while 2 and 3 start with a psum over a. When 2 and 3 arrive after
// device 0 has reused the slot of its first psum for its fifth (a psum over a, the very
// operation device 2 expects), device 2 used to see a matching operation there and summed
// device 0's fifth input into its first result, without an error (a probing helper). A slot
// whose tag is past the one expected proves the mismatch. Small and large inputs (the early
// return and the two-phase all-reduce).
TEST(RuntimeFailure, APeerFoundPastTheOperationIsAMismatchNotAStaleRead) {
  Runtime rt{4};
  const Mesh m({{"a", 2}, {"b", 2}});
  for (std::int64_t rows : {std::int64_t{16}, std::int64_t{100000}}) {
    try {
      rt.run(m, [&](Device& dev) {
        const bool late = dev.id() >= 2;
        if (late) std::this_thread::sleep_for(std::chrono::milliseconds(200));
        for (int t = 1; t <= 5; ++t) {
          const char* axis = late ? (t == 1 || t == 5 ? "a" : "b") : (t == 5 ? "a" : "b");
          psum(dev, Tensor(DType::f32, {rows}), axis);
        }
      });
      ADD_FAILURE() << "expected DeviceError (rows " << rows << ")";
    } catch (const DeviceError& e) {
      EXPECT_NE(e.message().find("reached different collectives at the same point"), std::string::npos)
          << e.message();
    }
  }
  EXPECT_NO_THROW(rt.run(m, [](Device& dev) { psum(dev, Tensor(DType::f32, {8}), "a"); }));
}

// Python's multiprocessing pattern: a fork()ed child has none of the parent's device threads, so
// a call there is refused at once (it used to wait for them forever), and the Runtime can be
// destroyed. The child reports by its exit status; alarm() turns a hang into a failure. (It
// starts no thread: ThreadSanitizer refuses threads after a multithreaded fork.)
// Devices that disagree on more than kind, group, dtype and size: the reduction, the input's
// shape, the gathered axis. Each mixed the two operations' results without a word (a psum on
// one device and a pmax on the other summed half the elements and maxed the rest; found by a
// probing helper). Large and small inputs: the small ones return early from staged copies.
TEST(RuntimeFailure, CollectivesThatDifferInTheirParametersAreAnError) {
  Runtime rt{2};
  const Mesh m({{"x", 2}});
  for (std::int64_t rows : {std::int64_t{4}, std::int64_t{4096}}) {
    auto expect_mismatch = [&](const std::function<void(Device&, const Tensor&)>& body) {
      try {
        rt.run(m, [&](Device& dev) {
          Tensor x(DType::f32, {rows, 6});
          body(dev, x);
        });
        ADD_FAILURE() << "expected DeviceError (rows " << rows << ")";
      } catch (const DeviceError& e) {
        EXPECT_NE(e.message().find("reached different collectives at the same point"), std::string::npos)
            << e.message();
      }
    };
    expect_mismatch([](Device& dev, const Tensor& x) { dev.id() == 0 ? psum(dev, x, "x") : pmax(dev, x, "x"); });
    expect_mismatch([](Device& dev, const Tensor& x) {
      all_gather(dev, x, "x", dev.id() == 0 ? 0 : 1, /*tiled=*/true);
    });
    expect_mismatch([](Device& dev, const Tensor& x) { all_gather(dev, x, "x", 0, /*tiled=*/dev.id() == 0); });
    expect_mismatch([rows](Device& dev, const Tensor& x) {
      psum(dev, dev.id() == 0 ? x : Tensor(DType::f32, {6, rows}), "x");
    });
    // The same shape in another dtype, and an all_to_all that splits another axis (both
    // compared through the operations' digests first, then field by field).
    expect_mismatch([rows](Device& dev, const Tensor& x) {
      psum(dev, dev.id() == 0 ? x : Tensor(DType::i32, {rows, 6}), "x");
    });
    expect_mismatch([](Device& dev, const Tensor& x) {
      all_to_all(dev, x, "x", dev.id() == 0 ? 0 : 1, 0, /*tiled=*/true);
    });
    // The same wire operation with different local steps around it: pmean divides the sum
    // afterwards, and a bool psum counts in int32 (the devices would return different results).
    expect_mismatch([](Device& dev, const Tensor& x) { dev.id() == 0 ? psum(dev, x, "x") : pmean(dev, x, "x"); });
    expect_mismatch([rows](Device& dev, const Tensor&) {
      psum(dev, Tensor(dev.id() == 0 ? DType::boolean : DType::i32, {rows, 6}), "x");
    });
    expect_mismatch([rows](Device& dev, const Tensor&) {
      psum_scatter(dev, Tensor(dev.id() == 0 ? DType::boolean : DType::i32, {rows, 6}), "x", 0, /*tiled=*/true);
    });
    // Device 0 sends to 1, device 1 thinks nobody sends: device 1 would have read device 0's
    // input all the same.
    expect_mismatch([](Device& dev, const Tensor& x) {
      const Permutation forward{{0, 1}};
      const Permutation nobody{};
      ppermute(dev, x, "x", dev.id() == 0 ? forward : nobody);
    });
    expect_mismatch([](Device& dev, const Tensor& x) {
      const Permutation swap{{0, 1}, {1, 0}};
      const Permutation stay{{0, 0}, {1, 1}};
      ppermute(dev, x, "x", dev.id() == 0 ? swap : stay);
    });
  }
  try {
    rt.run(m, [](Device& dev) {
      ppermute(dev, Tensor(DType::f32, {4}), "x", dev.id() == 0 ? Permutation{{0, 1}} : Permutation{{1, 0}});
    });
    ADD_FAILURE() << "expected DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_NE(e.message().find("with different (source, destination) pairs"), std::string::npos) << e.message();
  }
  // The message names what each device called, not the wire operation both would make.
  try {
    rt.run(m, [](Device& dev) {
      const Tensor x(dev.id() == 0 ? DType::boolean : DType::i32, {4});
      dev.id() == 0 ? psum(dev, x, "x") : pmean(dev, x, "x");
    });
    ADD_FAILURE() << "expected DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_NE(e.message().find("all_reduce (sum) over x of bool(4,)"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("all_reduce (mean) over x of int32(4,)"), std::string::npos) << e.message();
  }
  // The same pairs, listed in any order, are one permute.
  EXPECT_NO_THROW(rt.run(m, [](Device& dev) {
    ppermute(dev, Tensor(DType::f32, {4}), "x", dev.id() == 0 ? Permutation{{0, 1}, {1, 0}} : Permutation{{1, 0}, {0, 1}});
  }));
  EXPECT_NO_THROW(rt.run(m, [](Device& dev) { psum(dev, Tensor(DType::f32, {8}), "x"); }));
}

TEST(RuntimeFailure, AForkedChildIsRefusedNotHung) {
  auto rt = std::make_unique<Runtime>(4);
  const Mesh mesh({{"i", 4}});
  rt->run(mesh, [](Device&) {});
  const pid_t child = fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    alarm(20);
    int code = 0;
    try {
      rt->run(mesh, [](Device&) {});
      code = 1;  // ran: impossible, the threads are not here
    } catch (const UnsupportedError&) {
    } catch (...) {
      code = 2;
    }
    rt.reset();  // must neither hang nor crash
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child was killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  rt->run(mesh, [](Device&) {});  // the parent's Runtime still works
}

// A fork()ed child may destroy the Runtime while, in the parent, callers waited for devices
// and devices waited for a compute permit (here 4 devices on 1 core, so permits are scarce).
// glibc's condition variables, which held those waits, block their destructor on the waiters
// they had at the fork: most children hung (found by a probing helper). Each child exits 0
// after the destructor; alarm() turns a hang into a failure.
TEST(RuntimeFailure, AForkedChildDestroysARuntimeThatWasBusyAtTheFork) {
  auto rt = std::make_unique<Runtime>(4, /*cores=*/1);
  const Mesh mesh({{"i", 4}});
  std::atomic<bool> stop{false};
  auto busy_calls = [&] {
    while (!stop.load()) {
      rt->run(mesh, [](Device& dev) {
        Tensor a(DType::f32, {128, 128}), b(DType::f32, {128, 128}), c(DType::f32, {128, 128});
        kernels::matmul(dev.kernels(), view(a), view(b), mut_view(c));
      });
    }
  };
  std::thread first(busy_calls), second(busy_calls);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  int hung = 0, failed = 0;
  for (int i = 0; i < 10; ++i) {
    const pid_t child = fork();
    ASSERT_NE(child, -1);
    if (child == 0) {
      alarm(20);
      rt.reset();
      _exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) ++hung;
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
  }
  stop = true;
  first.join();
  second.join();
  EXPECT_EQ(hung, 0) << "children whose ~Runtime hung";
  EXPECT_EQ(failed, 0);
}

// Devices are taken in the order calls arrive: a call over all eight devices is not overtaken
// for ever by calls on pairs of them. With four threads looping calls on the four pairs, such
// a call used to wait for as long as they ran (found by a probing helper; 40 s here before the
// fix, with empty bodies). Liveness, not speed: now it waits for at most the four calls in
// progress, microseconds, and the deadline is far beyond that.
TEST(Runtime, ACallOverManyDevicesIsNotStarvedBySmallerCalls) {
  Runtime rt{8};
  std::vector<Mesh> pairs;
  for (int p = 0; p < 4; ++p) pairs.push_back(Mesh({{"i", 2}}, 2 * p));
  const Mesh all({{"i", 8}});
  std::atomic<bool> stop{false};
  std::atomic<int> calls{0};
  std::vector<std::thread> loopers;
  for (const Mesh& m : pairs)
    loopers.emplace_back([&rt, &m, &stop, &calls] {
      while (!stop.load()) {
        rt.run(m, [](Device&) {});
        ++calls;
      }
    });
  while (calls.load() < 1000) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::atomic<bool> done{false};
  std::thread wide([&] {
    rt.run(all, [](Device&) {});
    done = true;
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done.load() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const bool finished_while_others_ran = done.load();
  stop = true;
  for (auto& t : loopers) t.join();
  wide.join();
  EXPECT_TRUE(finished_while_others_ran) << "the call over all devices waited until the smaller calls stopped";
}

TEST(RuntimeFailure, ADeviceSkippingACollectiveIsAnErrorNotAHang) {
  Runtime rt{4};
  const Mesh m({{"x", 2}, {"y", 2}});
  for (int skipper = 0; skipper < 4; ++skipper) {
    try {
      rt.run(m, [&](Device& dev) {
        Tensor x(DType::f32, {1 << 14});
        x = psum(dev, x, {"x", "y"});
        if (dev.id() == skipper) return;  // not SPMD: leaves its peers in the next psum
        x = psum(dev, x, "y");
      });
      FAIL() << "expected DeviceError";
    } catch (const DeviceError& e) {
      EXPECT_NE(e.message().find("returned from the call without taking part in the all_reduce over y"),
                std::string::npos)
          << e.message();
    }
  }
}

// A permute couples only the devices that exchange blocks, so devices far apart on a ring may
// be several steps apart; the results must not notice, and other collectives in between still
// meet the whole group.
TEST(RuntimePermute, RingStepsWithASlowDeviceAndAllReducesInBetween) {
  Runtime rt{8};
  const Mesh m({{"x", 8}});
  for (int slow = 0; slow < 8; slow += 3) {
    std::vector<std::int32_t> got(8), total(8);
    rt.run(m, [&](Device& dev) {
      Tensor t = Tensor::from_bytes(DType::i32, {1}, std::vector<std::int32_t>{dev.id()}.data());
      for (int step = 0; step < 24; ++step) {
        if (dev.id() == slow && step % 5 == 0) std::this_thread::sleep_for(std::chrono::microseconds(300));
        Pending p = start_ppermute_shift(dev, t, "x", 1);
        t = p.wait();
        if (step % 7 == 6) total[dev.id()] = psum(dev, t, "x").as<std::int32_t>()[0];
      }
      got[dev.id()] = t.as<std::int32_t>()[0];
    });
    for (int d = 0; d < 8; ++d) {
      EXPECT_EQ(got[d], ((d - 24) % 8 + 8) % 8) << "device " << d << ", slow device " << slow;
      EXPECT_EQ(total[d], 28) << "device " << d;
    }
  }
}

TEST(RuntimeFailure, ADeviceSkippingARingShiftIsAnErrorNotAHang) {
  Runtime rt{4};
  const Mesh m({{"x", 4}});
  for (int skipper = 0; skipper < 4; ++skipper) {
    EXPECT_THROW(rt.run(m,
                        [&](Device& dev) {
                          Tensor x(DType::f32, {64});
                          x = ppermute_shift(dev, x, "x", 1);
                          if (dev.id() == skipper) return;
                          x = ppermute_shift(dev, x, "x", 1);
                        }),
                 DeviceError)
        << "skipper " << skipper;
  }
}

TEST(RuntimeFailure, APermutePairedWithAnotherCollectiveIsAnErrorNotAHang) {
  Runtime rt{4};
  const Mesh m({{"x", 4}});
  EXPECT_THROW(rt.run(m,
                      [](Device& dev) {
                        Tensor x(DType::f32, {64});
                        if (dev.id() == 2)
                          x = psum(dev, x, "x");
                        else
                          x = ppermute_shift(dev, x, "x", 1);
                      }),
               DeviceError);
}

TEST(RuntimeFailure, AbandonedAsyncCollectiveDoesNotHang) {
  Runtime rt{4};
  const Mesh m({{"x", 4}});
  EXPECT_THROW(rt.run(m,
                      [](Device& dev) {
                        Tensor x(DType::f32, {1 << 16});
                        Pending p = start_psum(dev, x, "x");
                        if (dev.id() == 1) throw std::runtime_error("dropped a pending psum");
                        p.wait();
                      }),
               DeviceError);
}

// A Pending destroyed without wait() in the call that started it aborts the call, and the error
// names the device that dropped it (it said "device -1").
TEST(RuntimeFailure, ADroppedPendingNamesItsDevice) {
  Runtime rt{4};
  const Mesh m({{"x", 4}});
  try {
    rt.run(m, [](Device& dev) {
      Tensor x(DType::f32, {1 << 14});
      Pending p = start_psum(dev, x, "x");
      if (dev.id() == 2) p = Pending();  // dropped
      else p.wait();
    });
    FAIL() << "expected DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_EQ(e.device(), 2);
    EXPECT_NE(e.message().find("dropped without wait()"), std::string::npos) << e.message();
  }
}

// A Pending kept past the call that started it: the call fails (its peers may still read the
// input), and a wait() in a later call is an ArgumentError, not an internal assertion, nor a
// cancellation of that call's own operation in the same slot. (Found by a probing helper: the
// first call returned normally, the second aborted the process.)
// A start form reads its input until wait(): given a temporary, it would read freed memory, so
// the rvalue overloads are deleted (a compile error, checked here without compiling one).
template <class T>
concept CanStartPsumOf = requires(Device& dev, T&& x, const Axes& axes) { start_psum(dev, std::forward<T>(x), axes); };
template <class T>
concept CanStartAllGatherOf = requires(Device& dev, T&& x, const Axes& axes) {
  start_all_gather(dev, std::forward<T>(x), axes, 0, true);
};
static_assert(CanStartPsumOf<Tensor&> && CanStartPsumOf<const Tensor&>);
static_assert(!CanStartPsumOf<Tensor> && !CanStartPsumOf<const Tensor>);
static_assert(CanStartAllGatherOf<Tensor&> && !CanStartAllGatherOf<Tensor>);

TEST(RuntimeFailure, APendingKeptPastItsCallIsAnError) {
  Runtime rt{2};
  const Mesh m({{"x", 2}});
  std::vector<Pending> kept(2);
  std::vector<Tensor> inputs(2);
  try {
    rt.run(m, [&](Device& dev) {
      inputs[dev.id()] = Tensor(DType::f32, {1 << 14});
      kept[dev.id()] = start_psum(dev, inputs[dev.id()], "x");
    });
    FAIL() << "expected DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_NE(e.message().find("started collective(s) not waited for"), std::string::npos) << e.message();
  }
  try {
    rt.run(m, [&](Device& dev) {
      Tensor y(DType::f32, {4});
      Pending fresh = start_psum(dev, y, "x");
      kept[dev.id()] = Pending();  // the stale ticket is dropped: nothing of this call is cancelled
      EXPECT_EQ(fresh.wait().numel(), 4);
    });
  } catch (const DeviceError& e) {
    FAIL() << e.message();
  }
  std::vector<Pending> stale(2);
  EXPECT_NO_THROW(rt.run(m, [&](Device& dev) {
    stale[dev.id()] = start_psum(dev, inputs[dev.id()], "x");
    stale[dev.id()].wait();
  }));
  // One started in the first call, waited in the second.
  try {
    rt.run(m, [&](Device& dev) { kept[dev.id()] = start_psum(dev, inputs[dev.id()], "x"); });
  } catch (const DeviceError&) {
  }
  try {
    rt.run(m, [&](Device& dev) { kept[dev.id()].wait(); });
    FAIL() << "expected DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_NE(e.message().find("started in an earlier call"), std::string::npos) << e.message();
  }
  kept.clear();
  EXPECT_NO_THROW(rt.run(m, [](Device& dev) { psum(dev, Tensor(DType::f32, {8}), "x"); }));
}

// An allocation that fails on a device says so (the message was "std::bad_alloc" alone).
TEST(RuntimeFailure, OutOfMemoryOnADeviceSaysSo) {
  Runtime rt{2};
  try {
    rt.run(Mesh({{"x", 2}}), [](Device& dev) {
      if (dev.id() == 1) throw std::bad_alloc();
    });
    FAIL() << "expected DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_EQ(e.device(), 1);
    EXPECT_NE(e.message().find("out of memory (std::bad_alloc)"), std::string::npos) << e.message();
  }
}

// A Pending belongs to the device thread that started it: waiting for it on the host thread
// after its call failed (it aborted the process on an internal assertion), or on another
// device's thread during the call, is an ArgumentError; dropping it on another thread leaves
// the communicator alone.
TEST(RuntimeFailure, APendingIsWaitedForOnlyByItsDevice) {
  Runtime rt{2};
  const Mesh m({{"x", 2}});
  const Tensor t(DType::f32, {4});
  std::vector<Pending> kept(2);
  EXPECT_THROW(rt.run(m, [&](Device& dev) { kept[dev.id()] = start_psum(dev, t, "x"); }), DeviceError);
  try {
    kept[0].wait();
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("wait() on a collective that device 0 started, from a thread that is no device's"),
              std::string::npos)
        << e.what();
  }
  kept.clear();  // dropped on the host thread
  // Device 1 waits for device 0's psum (after a barrier that orders device 0's start before it).
  std::vector<Pending> handed(2);
  try {
    rt.run(m, [&](Device& dev) {
      handed[dev.id()] = start_psum(dev, t, "x");
      barrier(dev, "x");
      if (dev.id() == 1) handed[0].wait();
      barrier(dev, "x");
      handed[dev.id()].wait();
    });
    FAIL() << "expected DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_EQ(e.device(), 1);
    EXPECT_NE(e.message().find("wait() on a collective that device 0 started, from device 1's thread"),
              std::string::npos)
        << e.message();
  }
  handed.clear();
  EXPECT_NO_THROW(rt.run(m, [&](Device& dev) { EXPECT_EQ(psum(dev, t, "x").numel(), 4); }));
}

// A Pending that outlives its Runtime names its device from what it recorded, without reading
// the destroyed device (ASan's sanitizer run checks that), and is dropped safely; one waited
// for in another Runtime's call, by a device that may sit at the same address, is refused too.
TEST(RuntimeFailure, APendingOutlivingItsRuntimeIsAnErrorNotAUseAfterFree) {
  const Mesh m({{"x", 2}});
  const Tensor t(DType::f32, {4});
  std::vector<Pending> kept(2);
  {
    Runtime rt{2};
    EXPECT_THROW(rt.run(m, [&](Device& dev) { kept[dev.id()] = start_psum(dev, t, "x"); }), DeviceError);
  }
  try {
    kept[1].wait();
    FAIL() << "expected ArgumentError";
  } catch (const ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("device 1 started, from a thread that is no device's"), std::string::npos)
        << e.what();
  }
  Runtime next{2};
  try {
    next.run(m, [&](Device& dev) { kept[dev.id()].wait(); });
    FAIL() << "expected DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_NE(e.message().find("wait() on a collective"), std::string::npos) << e.message();
  }
  kept.clear();
  EXPECT_NO_THROW(next.run(m, [&](Device& dev) { EXPECT_EQ(psum(dev, t, "x").numel(), 4); }));
}

}  // namespace
}  // namespace shard
