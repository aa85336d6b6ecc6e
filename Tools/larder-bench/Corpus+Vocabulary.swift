import Foundation
import Glibc

extension Corpus {
    enum Vocab {
        static func list(_ text: String) -> [[UInt8]] {
            text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map { Array($0.utf8) }
        }
        static func strings(_ text: String) -> [String] {
            text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        }

        static let words = list("""
            your you the and to of a for with in on get start free trial premium plan unlock all features \
            access unlimited cancel anytime today now more best value save month year week join millions people \
            who already love app new every day progress goals track personal daily reminders insights smart help \
            reach faster better easy simple just minutes build habits that stick workout meal sleep focus learn \
            language lessons courses experts guided programs tailored based answers profile continue next back \
            skip restore purchase terms privacy policy subscription renews automatically unless cancelled least \
            hours before end current period payment charged account confirmation manage settings after billed \
            annually monthly weekly price only per off limited offer special discount welcome set up choose what \
            matters most how often do want are we our will can be this is it from by as at or no ads first \
            results see feel energy mind body health stress calm breathing meditation stories coaching community \
            support private secure cloud sync devices offline mode themes widgets reports charts analytics export \
            backup family sharing members included priority early exclusive content pro plus gold tier yearly \
            lifetime upgrade keep going almost there great choice ready journey begin ahead step quick questions \
            tailor experience recommend perfect fit level beginner intermediate advanced time goal weight fitness \
            routine plans recipes shopping list grocery nutrition calories water steps run walk yoga pilates \
            strength cardio stretch recovery rest mood journal gratitude notes tasks projects calendar schedule \
            teams work study exam practice words vocabulary grammar speaking listening reading writing native \
            speakers review spaced repetition flashcards streak badges rewards points challenge friends \
            leaderboard share invite bonus days extra months rated stars reviews trusted award winning featured \
            editors safe payments encrypted data never sold third parties anonymous usage statistics improve \
            service than over into their them they which when while without within about again also any around \
            because been being both each few here its less many much other over same some such those through \
            under until very way well where why would could should might must need feel sure thank thanks
            """)
        static let names = strings("""
            Anna Ben Chloe Daniel Emma Felix Grace Hugo Isla Jonas Kate Liam Maya Noah Olivia Paul Quinn Rosa \
            Sam Tara Umar Vera Will Xena Yusuf Zoe Lena Marco Nina Omar Priya Ravi Sofia Tom Elena Mateo
            """)
        static let blocks = strings("""
            app screen header footer hero card plan price badge button cta link icon media logo list feature \
            benefit review testimonial rating avatar progress step stepper slider carousel slide modal overlay \
            sheet toggle switch option choice answer question quiz input field label hint legal nav tab panel \
            grid row stack divider timer countdown banner toast tooltip chip tag highlight trial discount savings \
            compare table faq summary loader spinner paywall onboarding offer checkout layout section container
            """)
        static let elements = strings("""
            title subtitle text label value icon image price period badge button footer header body list item \
            caption note amount currency wrapper inner content action media heading description
            """)
        static let modifiers = strings("""
            primary secondary active selected disabled hidden visible large small compact dark light muted \
            accent outline ghost rounded centered sticky featured popular recommended expanded collapsed loading \
            success warning
            """)
        static let screens = strings("""
            welcome onboarding goals quiz profile paywall plans offer trial checkout success terms privacy faq \
            reviews upsell
            """)
        static let extraCSS = strings("theme.css components.css animations.css paywall.css onboarding.css")
        static let extraJS = strings("analytics.js paywall.js onboarding.js i18n.js polyfills.js experiments.js")
        static let extraJSON = strings(
            "plans.json products.json experiments.json events.json features.json reviews.json")
        static let svgNames = strings("""
            icon-close.svg icon-check.svg icon-star.svg icon-lock.svg icon-arrow-right.svg icon-crown.svg \
            icon-gift.svg icon-shield.svg icon-heart.svg icon-bolt.svg icon-sparkle.svg icon-info.svg \
            illustration-welcome.svg illustration-goals.svg badge-best-value.svg pattern-dots.svg
            """)
        static let pngBases = strings("icon badge illustration screenshot sticker feature mockup frame")
        static let jpgBases = strings("photo bg avatar testimonial banner cover lifestyle")
        static let colors = strings("""
            #ffffff #000000 #111827 #1f2937 #374151 #6b7280 #9ca3af #d1d5db #e5e7eb #f3f4f6 #f9fafb \
            #2563eb #3b82f6 #60a5fa #1d4ed8 #7c3aed #8b5cf6 #a78bfa #db2777 #ec4899 #f472b6 #dc2626 \
            #ef4444 #f97316 #fb923c #f59e0b #fbbf24 #16a34a #22c55e #4ade80 #0d9488 #14b8a6 #0ea5e9 \
            #38bdf8 #fafafa #f5f5f7 #1c1c1e #2c2c2e #3a3a3c #8e8e93 #c7c7cc #ff3b30 #34c759 #007aff #5856d6
            """)
        static let cssVariables = strings("""
            --color-primary --color-accent --color-text --color-muted --color-surface --color-background \
            --color-border --color-success --color-danger
            """)
        static let keyframes = strings("fade-in fade-out slide-up slide-down pulse shimmer pop-in spin bounce")
        static let easings = strings(
            "ease ease-in ease-out ease-in-out linear cubic-bezier(0.2,0.8,0.2,1) cubic-bezier(0.4,0,0.2,1)")
        static let cssProperties: [(String, [String])] = {
            let spec = """
                display:block|flex|grid|inline-flex|none|inline-block
                position:relative|absolute|fixed|sticky
                top:$len
                left:$len
                right:$len
                bottom:$len
                inset:0
                margin:$box
                padding:$box
                margin-top:$len
                margin-bottom:$len
                padding-top:$len
                padding-bottom:$len
                width:$size
                height:$size
                max-width:$size
                min-height:$size
                color:$color
                background-color:$color
                background:$bg
                border:$border
                border-bottom:$border
                border-radius:$len
                font-family:$font
                font-size:$fs
                font-weight:400|500|600|700|800
                line-height:1|1.2|1.25|1.4|1.5|1.6|$len
                letter-spacing:-0.01em|-0.02em|0.02em|0.04em|0
                text-align:center|left|right
                text-transform:uppercase|none|capitalize
                text-decoration:none|underline|line-through
                align-items:center|flex-start|flex-end|stretch|baseline
                justify-content:center|space-between|flex-start|flex-end|space-around
                flex-direction:row|column|column-reverse
                flex:1|1 1 auto|0 0 auto|none
                flex-wrap:wrap|nowrap
                gap:$len
                opacity:$unit
                transform:$transform
                transition:$trans
                box-shadow:$shadow
                z-index:1|2|10|100|1000|-1
                overflow:hidden|auto|visible
                cursor:pointer|default|not-allowed
                white-space:nowrap|normal|pre-line
                pointer-events:none|auto
                user-select:none|auto
                grid-template-columns:repeat(2, minmax(0, 1fr))|repeat(3, 1fr)|1fr auto|auto 1fr auto
                backdrop-filter:blur(8px)|blur(12px)|blur(20px) saturate(180%)
                animation:$anim
                """
            return spec.split(separator: "\n").map { line in
                let colon = line.firstIndex(of: ":")!
                return (String(line[..<colon]), line[line.index(after: colon)...].split(separator: "|").map(String.init))
            }
        }()
        static let lengths: [Int] = [0, 1, 2, 4, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56, 64, 80, 96, 120]
        static let pseudo = strings("""
            :hover :focus-visible ::before ::after :active :disabled :first-child :last-child \
            :not(:last-child) :nth-child(2n) .is-active .is-selected .is-hidden
            """)

        static let jsVerbs = list("""
            get set handle update render load fetch init create build parse format validate track log select \
            toggle open close show hide apply reset compute resolve register subscribe emit dispatch normalize \
            merge find ensure check is has should can on to with use make read write save restore start stop \
            schedule cancel prepare attach detach measure
            """)
        static let jsNouns = list("""
            plan plans product products price state config options event events handler listener element node \
            root container button screen step index flow user session locale strings text label value values \
            key keys item items list map result response request payload data error status trial offer discount \
            variant experiment timer duration delay animation frame callback promise queue cache store context \
            props params query path id type name count total amount currency period formatter logger analytics \
            tracker purchase receipt transaction subscription entitlement eligibility layout style theme color \
            width height offset scroll position target source template selection visibility
            """)
        static let jsMembers = list("""
            addEventListener removeEventListener querySelector querySelectorAll classList add remove toggle \
            contains dataset setAttribute getAttribute textContent innerHTML style appendChild createElement \
            preventDefault stopPropagation then catch finally json push map filter reduce forEach find includes \
            indexOf slice join split keys entries assign length toFixed toString now requestAnimationFrame \
            setTimeout clearTimeout postMessage getBoundingClientRect scrollIntoView focus blur current \
            options state config plans selectedPlan locale strings items status
            """)
        static let jsEvents = strings("""
            click change input submit keydown scroll resize load visibilitychange touchstart transitionend
            """)
        /// JSON keys with the kind of value they hold (see `FolderGen.jsonFile`):
        /// 0 id, 1 sentence, 2 integer, 3 price, 4 bool, 5 hash, 6 date, 7 tag array, 8 money object, 9 enum.
        static let jsonKeys: [(String, Int)] = strings("""
            id:0 name:1 title:1 subtitle:1 description:1 type:9 status:9 enabled:4 visible:4 order:2 weight:2 \
            priority:2 variant:9 group:9 locale:9 currency:9 amount:3 price:8 period:9 duration:2 trialDays:2 \
            introPrice:8 sku:0 productId:0 offerId:0 placement:9 source:9 campaign:0 audience:9 segment:9 \
            createdAt:6 updatedAt:6 expiresAt:6 tags:7 labels:7 badges:7 color:9 icon:9 rating:2 author:1 \
            highlight:4 maxUses:2 minVersion:2 platform:9 region:9 experimentId:5 rollout:2 layout:9 theme:9 \
            checksum:5 revision:5
            """).map { token in
                let parts = token.split(separator: ":")
                return (String(parts[0]), Int(parts[1])!)
            }
        static let shortNames: [[UInt8]] = {
            let letters = Array("etnrioasuclfdphmgvybwxkEqjzTNRSOA".utf8)
            var out: [[UInt8]] = letters.map { [$0] }
            for a in letters.prefix(20) {
                for b in letters.prefix(12) { out.append([a, b]) }
            }
            let reserved: Set<[UInt8]> = [Array("do".utf8), Array("if".utf8), Array("in".utf8)]
            return out.filter { !reserved.contains($0) }
        }()
    }
}
